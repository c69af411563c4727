import { parseDocument, visit } from "yaml";
import { CLOUD_CFG, DEFAULT_CLOUD_DIR, DEFAULT_RUN_DIR } from "./cloud-init-paths.js";
import { comparePythonStrings } from "./python/repr.js";

/** Read access to the inspected system's files, by their paths on that system (state-files maps them). */
export interface ConfigFiles {
  read(systemPath: string): string | undefined;
  isDirectory(systemPath: string): boolean;
  /** Names in a directory, or [] when it cannot be listed. */
  list(systemPath: string): string[];
}

/** What run_dir depends on besides files: the kernel command line (`cc:` config) and env `CLOUD_CFG`. */
export interface RunDirInput {
  files: ConfigFiles;
  cmdline: string;
  /** env CLOUD_CFG: a config file of the highest priority (cloudinit/settings.py CFG_ENV_NAME). */
  cloudCfg: string | undefined;
}

type Config = Record<string, unknown>;

function isConfig(value: unknown): value is Config {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The tags PyYAML's SafeConstructor knows (yaml/constructor.py); any other explicit tag (`!foo`,
// `!!python/name:...`, `!!merge`) makes safe_load raise ConstructorError.
const SAFE_TAGS = new Set(
  ["null", "bool", "int", "float", "binary", "timestamp", "omap", "pairs", "set", "str", "seq", "map"].map(
    (name) => `tag:yaml.org,2002:${name}`,
  ),
);

// PyYAML's Reader (yaml/reader.py NON_PRINTABLE) refuses a stream holding any other character, a NUL or an
// escape character anywhere in the file included, before parsing.
const NON_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/**
 * cloudinit/util.py load_yaml(default={}): PyYAML's safe_load is YAML 1.1 and lets a repeated key win; a file
 * that is not YAML, holds a character or a tag safe_load refuses, or whose root is not a mapping counts as empty.
 */
function loadYaml(text: string | undefined): Config {
  if (text === undefined || NON_PRINTABLE.test(text)) return {};
  try {
    // PyYAML breaks lines at NEL, LS and PS too (yaml/reader.py, scanner.py scan_line_break), as YAML 1.1 does.
    const lines = text.replace(/[\x85\u2028\u2029]/g, "\n");
    const doc = parseDocument(lines, { version: "1.1", uniqueKeys: false, merge: true, logLevel: "error" });
    if (doc.errors.length > 0) return {};
    let unsafe = false;
    visit(doc, {
      Node(_key, node) {
        if (node.tag !== undefined && !SAFE_TAGS.has(node.tag)) {
          unsafe = true;
          return visit.BREAK;
        }
        return undefined;
      },
    });
    if (unsafe) return {};
    const value: unknown = doc.toJS();
    return isConfig(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * cloudinit/util.py mergemanydict with the default mergers: sources in priority order, the first value of a key
 * wins, and two mappings under one key merge recursively.
 */
function mergeFirstWins(sources: readonly Config[]): Config {
  const merge = (high: Config, low: Config): Config => {
    const out: Config = { ...high };
    for (const [key, value] of Object.entries(low)) {
      const kept = out[key];
      if (!Object.hasOwn(out, key)) out[key] = value;
      else if (isConfig(kept) && isConfig(value)) out[key] = merge(kept, value);
    }
    return out;
  };
  return sources.reduce(merge, {});
}

function pathsOf(cfg: Config): Config {
  const systemInfo = cfg.system_info;
  const paths = isConfig(systemInfo) ? systemInfo.paths : undefined;
  return isConfig(paths) ? paths : {};
}

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** Python's urllib.parse.unquote: %XX escapes as UTF-8, invalid sequences replaced, malformed escapes kept. */
function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
    Buffer.from(run.replaceAll("%", ""), "hex").toString("utf8"),
  );
}

/** cloudinit/util.py read_cc_from_cmdline: the `cc: <yaml> end_cc` parts of the kernel command line. */
export function cloudConfigFromCmdline(cmdline: string): string {
  const line = ` ${cmdline}`;
  const begin = " cc:";
  const end = "end_cc";
  const tokens: string[] = [];
  let at = line.indexOf(begin);
  while (at >= 0) {
    let stop = line.indexOf(end, at + begin.length);
    if (stop < 0) stop = line.length;
    tokens.push(unquote(line.slice(at + begin.length, stop).trimStart()).replaceAll("\\n", "\n"));
    at = line.indexOf(begin, stop + end.length);
  }
  return tokens.join("\n");
}

/** cloudinit/util.py read_conf_with_confd(CLOUD_CONFIG): cloud.cfg, overridden by its conf.d directory. */
function readConfWithConfd(files: ConfigFiles): Config {
  const main = loadYaml(files.read(CLOUD_CFG));
  let confd = "";
  if (Object.hasOwn(main, "conf_d")) {
    // A falsy conf_d turns conf.d off; a non-string one makes cloud-init raise, which we treat as off.
    const value = main.conf_d;
    if (typeof value === "string") confd = value.trim();
  } else if (files.isDirectory(`${CLOUD_CFG}.d`)) {
    confd = `${CLOUD_CFG}.d`;
  }
  const parts: Config[] = [];
  if (confd !== "" && files.isDirectory(confd)) {
    // read_conf_d: names sorted in reverse, so the last name in sort order has the highest priority.
    const names = files
      .list(confd)
      .filter((n) => n.endsWith(".cfg"))
      // sorted() compares code points, not UTF-16 units (U+1F600 comes after U+FF01, not before).
      .sort((a, b) => comparePythonStrings(b, a));
    parts.push(mergeFirstWins(names.map((n) => loadYaml(files.read(join(confd, n))))));
  }
  parts.push(main);
  return mergeFirstWins(parts);
}

/**
 * One stages.py _read_bootstrap_cfg pass: helpers.ConfigMerger over env CLOUD_CFG, the instance's
 * cloud-config (user data, vendor2, vendor) and fetch_base_config (kernel `cc:`, `<run_dir>/cloud.cfg`,
 * cloud.cfg with conf.d); the built-in defaults set no run_dir, so they are left out.
 */
function readPass(input: RunDirInput, paths: Config): Config {
  const { files } = input;
  const runDir = typeof paths.run_dir === "string" ? paths.run_dir : DEFAULT_RUN_DIR;
  const cloudDir = typeof paths.cloud_dir === "string" ? paths.cloud_dir : DEFAULT_CLOUD_DIR;
  const instance = join(cloudDir, "instance");
  const sources: Config[] = [];
  if (input.cloudCfg !== undefined) sources.push(loadYaml(files.read(input.cloudCfg)));
  for (const name of ["cloud-config.txt", "vendor2-cloud-config.txt", "vendor-cloud-config.txt"]) {
    sources.push(loadYaml(files.read(join(instance, name))));
  }
  sources.push(loadYaml(cloudConfigFromCmdline(input.cmdline)));
  sources.push(loadYaml(files.read(join(runDir, "cloud.cfg"))));
  sources.push(readConfWithConfd(files));
  return mergeFirstWins(sources);
}

/**
 * The run directory `cloud-init status` uses (cloudinit/cmd/devel read_cfg_paths → stages.py Init._read_cfg):
 * a first pass with the default paths; when it moves run_dir, a second pass reads the runtime config and
 * instance files from the new paths.
 */
export function resolveRunDir(input: RunDirInput): string {
  const first = pathsOf(readPass(input, {}));
  if (first.run_dir === DEFAULT_RUN_DIR || first.run_dir === undefined || first.run_dir === null) {
    return DEFAULT_RUN_DIR;
  }
  const runDir = pathsOf(readPass(input, first)).run_dir;
  // Paths() takes any value; only a non-empty string names a directory we can read under --root.
  return typeof runDir === "string" && runDir !== "" ? runDir : DEFAULT_RUN_DIR;
}
