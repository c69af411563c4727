import { isUtf8 } from "node:buffer";
import type { Stats } from "node:fs";
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { ConfigFiles } from "./cloud-config.js";
import { CLOUD_CFG, DEFAULT_CLOUD_DIR, DEFAULT_RUN_DIR, DISABLED_MARKER } from "./cloud-init-paths.js";
import { InputError } from "./errors.js";
import { readStateFile } from "./read-state-file.js";
import { rootedPath } from "./rooted-path.js";
import type { StatusV1 } from "./status-file.js";
import { emptyStatusV1, parseStatusJson } from "./status-file.js";

/** Everything `cloud-init status` reads from the file system and environment, read once. */
export interface BootState {
  /** `/run/systemd/system` is a directory (cloudinit/distros uses_systemd). */
  isSystemd: boolean;
  /** The kernel command line (env DEBUG_PROC_CMDLINE, else `/proc/1/cmdline` in a container, else `/proc/cmdline`). */
  cmdline: string;
  /** env KERNEL_CMDLINE, "" when unset. */
  kernelCmdlineEnv: string;
  markerFile: boolean;
  /** run_dir as the inspected system names it (for messages). */
  runDir: string;
  generatorDisabled: boolean;
  generatorEnabled: boolean;
  /** `<run_dir>/status.json` exists (os.path.exists), readable or not: with no result.json, boot is running. */
  statusFileExists: boolean;
  /** Its `v1`, parsed; empty when the file is missing, with `problems` when it is unreadable or malformed. */
  statusV1: StatusV1;
  resultExists: boolean;
  /** Config and /proc files refused (not a regular file, too big), for stderr. */
  warnings: string[];
}

/** Where the inspected system's root is, and its environment. */
export interface StateDeps {
  root: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * A config or /proc file as text; undefined when absent or unreadable (cloud-init treats those as empty). One that
 * is not a regular file or is over the size limit is refused without blocking, with a warning naming it.
 */
function readText(file: string, warnings?: string[]): string | undefined {
  return readBytes(file, warnings)?.toString("utf8");
}

function readBytes(file: string, warnings?: string[]): Buffer | undefined {
  const read = readStateFile(file);
  if (read.kind === "ok") return read.bytes;
  if (read.kind === "refused" && warnings !== undefined && !read.reason.startsWith("permission")) {
    warnings.push(`bootstatus: ignoring ${file}: ${read.reason}`);
  }
  return undefined;
}

/**
 * A command line file as cloudinit/util.py _get_cmdline reads it: load_text_file decodes strictly, and the
 * UnicodeDecodeError of a byte that is not UTF-8 is caught with every other failure, so such a line counts as "".
 */
function readCmdlineFile(file: string, warnings: string[]): string {
  const bytes = readBytes(file, warnings);
  return bytes !== undefined && isUtf8(bytes) ? bytes.toString("utf8") : "";
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function isRealDirectory(file: string): boolean {
  try {
    return lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Whether any config cloud-init merges for its paths could move run_dir: only then is YAML parsed. Covers every
 * source of the first pass (cloud.cfg and conf.d, the runtime config, kernel `cc:`, instance files, CLOUD_CFG);
 * a conf_d key in cloud.cfg may point at other files, so it counts too.
 */
function mayMoveRunDir(
  files: ConfigFiles,
  input: { cmdline: string; cloudCfg: string | undefined },
): boolean {
  const main = files.read(CLOUD_CFG) ?? "";
  if (main.includes("run_dir") || main.includes("conf_d")) return true;
  const confd = files.list(`${CLOUD_CFG}.d`).filter((n) => n.endsWith(".cfg"));
  const others = [
    ...confd.map((n) => `${CLOUD_CFG}.d/${n}`),
    `${DEFAULT_RUN_DIR}/cloud.cfg`,
    `${DEFAULT_CLOUD_DIR}/instance/cloud-config.txt`,
    `${DEFAULT_CLOUD_DIR}/instance/vendor2-cloud-config.txt`,
    `${DEFAULT_CLOUD_DIR}/instance/vendor-cloud-config.txt`,
    ...(input.cloudCfg === undefined ? [] : [input.cloudCfg]),
  ];
  if (input.cmdline.includes("run_dir")) return true;
  return others.some((f) => files.read(f)?.includes("run_dir") === true);
}

/**
 * cloudinit/util.py is_container, as far as files under the root can tell: its own checks (PID 1's environment,
 * OpenVZ, Linux-VServer) plus the files `systemd-detect-virt --container` (its first check) reads.
 */
function isContainer(at: (p: string) => string, warnings: string[]): boolean {
  const markers = ["/run/systemd/container", "/.dockerenv", "/run/.containerenv"];
  if (markers.some((m) => existsSync(at(m)))) return true;
  const environ = readText(at("/proc/1/environ"), warnings) ?? "";
  const names = environ.split("\0").map((entry) => entry.split("=")[0]);
  if (names.includes("container") || names.includes("LIBVIRT_LXC_UUID")) return true;
  if (isDirectory(at("/proc/vz")) && !isDirectory(at("/proc/bc"))) return true;
  // Upstream compares the text after "VxID:" of the stripped line with "0" as it is (a tab included).
  const status = (readText(at("/proc/self/status"), warnings) ?? "").split("\n");
  return status.some((line) => line.startsWith("VxID:") && line.trim().slice("VxID:".length) !== "0");
}

/**
 * cloudinit/util.py _get_cmdline: in a container PID 1's command line (NULs to spaces, last byte dropped, so an
 * LXD container does not see the host's `cloud-init=disabled`), else /proc/cmdline stripped; "" when unreadable or not UTF-8.
 */
function kernelCmdline(at: (p: string) => string, warnings: string[]): string {
  if (isContainer(at, warnings))
    return readCmdlineFile(at("/proc/1/cmdline"), warnings).replaceAll("\0", " ").slice(0, -1);
  return readCmdlineFile(at("/proc/cmdline"), warnings).trim();
}

/**
 * Reads and parses `<run_dir>/status.json` (status.py: `load_json(load_text_file(status_file))`), once, here at the
 * edge. `name` is how messages call it: the path on the inspected system.
 */
function readStatusFile(file: string, name: string): { exists: boolean; v1: StatusV1 } {
  const read = readStateFile(file);
  if (read.kind === "missing") return { exists: false, v1: emptyStatusV1() };
  if (read.kind === "refused") return unreadable(name, read.reason);
  // cloud-init decodes strictly (util.decode_binary) and keeps a BOM, which json.loads then rejects. isUtf8 checks
  // as a fatal TextDecoder would, without the ICU decoder a start would otherwise set up.
  if (!isUtf8(read.bytes)) return unreadable(name, "not valid UTF-8");
  const text = read.bytes.toString("utf8");
  return { exists: true, v1: parseStatusJson(text, name) };
}

function unreadable(name: string, reason: string): { exists: boolean; v1: StatusV1 } {
  const v1 = emptyStatusV1();
  v1.problems.push(`Cannot read ${name}: ${reason}`);
  return { exists: true, v1 };
}

/** Reads the inspected system's boot state under `deps.root`; never writes anything. */
export async function readBootState(deps: StateDeps): Promise<BootState> {
  const { root } = deps;
  // A mistyped --root would otherwise read as an empty sysvinit system that never started cloud-init.
  if (!isDirectory(root)) {
    throw new InputError(
      `Cannot read the state under "${root}": not a directory (check --root or BOOTSTATUS_ROOT)`,
    );
  }
  // Every path below shares a few prefixes (/run/cloud-init, /etc/cloud, /proc): each is looked up once per read.
  const seen = new Map<string, Stats | undefined>();
  const at = (p: string): string => rootedPath(root, p, seen);
  const warnings: string[] = [];
  const cmdline = deps.env.DEBUG_PROC_CMDLINE ?? kernelCmdline(at, warnings);
  // mayMoveRunDir and both resolveRunDir passes read cloud.cfg, conf.d and the instance files: read each once.
  const texts = new Map<string, string | undefined>();
  const files: ConfigFiles = {
    read: (p) => {
      if (!texts.has(p)) texts.set(p, readText(at(p), warnings));
      return texts.get(p);
    },
    isDirectory: (p) => isDirectory(at(p)),
    list: (p) => listNames(at(p)),
  };
  // A relative CLOUD_CFG is relative to the caller's directory in cloud-init; under --root we take it from /.
  const cloudCfg = deps.env.CLOUD_CFG || undefined;
  const config = { files, cmdline, cloudCfg };
  // Only load cloud-config.ts (and with it the YAML parser) when some config mentions run_dir.
  const runDir = mayMoveRunDir(files, config)
    ? (await import("./cloud-config.js")).resolveRunDir(config)
    : DEFAULT_RUN_DIR;
  const statusFile = readStatusFile(at(`${runDir}/status.json`), `${runDir}/status.json`);
  return {
    // distros.uses_systemd: os.lstat, so a symlink named /run/systemd/system does not count.
    isSystemd: isRealDirectory(path.join(at("/run/systemd"), "system")),
    cmdline,
    kernelCmdlineEnv: deps.env.KERNEL_CMDLINE ?? "",
    markerFile: existsSync(at(DISABLED_MARKER)),
    runDir,
    generatorDisabled: existsSync(at(`${runDir}/disabled`)),
    generatorEnabled: existsSync(at(`${runDir}/enabled`)),
    statusFileExists: statusFile.exists,
    statusV1: statusFile.v1,
    resultExists: existsSync(at(`${runDir}/result.json`)),
    warnings,
  };
}
