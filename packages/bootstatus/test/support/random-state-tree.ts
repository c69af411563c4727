import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/** mulberry32: a tiny seeded generator, so a fuzz run is reproduced by its seed alone. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text written as is (numbers Python reads its own way: `0.0`, `1e400`, `NaN`, 2^53 + 1). */
class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
/** An object as ordered entries, so keys can repeat (Python's json keeps the last). */
class Obj {
  readonly entries: [string, Json][];
  constructor(entries: [string, Json][]) {
    this.entries = entries;
  }
}
type Json = null | boolean | string | Raw | Obj | Json[];

function serialize(value: Json, indent: string | undefined, depth = 0): string {
  const nl = indent === undefined ? "" : `\n${indent.repeat(depth + 1)}`;
  const end = indent === undefined ? "" : `\n${indent.repeat(depth)}`;
  if (value instanceof Raw) return value.text;
  if (value instanceof Obj) {
    if (value.entries.length === 0) return "{}";
    const items = value.entries.map(
      ([k, v]) => `${nl}${JSON.stringify(k)}: ${serialize(v, indent, depth + 1)}`,
    );
    return `{${items.join(",")}${end}}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${value.map((v) => `${nl}${serialize(v, indent, depth + 1)}`).join(",")}${end}]`;
  }
  // A lone surrogate as its \u escape (Python accepts it, JSON.stringify would too).
  return JSON.stringify(value);
}

/** What the tree holds that the package README documents as read differently (class b of the fuzzer). */
export interface TreeTraits {
  /** A stage `errors` string, a boolean stage time, NaN/Infinity: cloud-init accepts them, bootstatus reports them. */
  acceptedByCloudInit: string[];
  /** `systemctl` fails: `--wait` would retry forever in cloud-init. */
  systemctlFails: boolean;
  /**
   * A config the package README lists as read differently: an empty or non-string path, a `system_info` or
   * `paths` that is not a mapping, a non-string conf_d, a run_dir with a NUL, a file that is not UTF-8 (cloud-init
   * raises or reads its working directory; bootstatus takes the default run_dir or reads the file leniently).
   */
  configDiffers: string[];
  /** v1 has a key named like a computed field, which hides it in cloud-init's output but not in report v1. */
  shadowsComputed: boolean;
  /**
   * What makes cloud-init raise where bootstatus prints (class c, package README "Differences"): a lone surrogate
   * printed to UTF-8 stdout, a shadowing v1 key that --long cannot iterate, PID 1's environ with a token
   * without `=`.
   */
  cloudInitRaises: string[];
}

/** One random state tree: its files, the environment and the fake `systemctl` answers. */
export interface StateTree {
  /** Relative path → content; null: a directory; `{ link }`: a symbolic link to that target. */
  files: Map<string, string | Buffer | null | { link: string }>;
  env: Record<string, string>;
  systemctl: Record<string, string>;
  traits: TreeTraits;
}

const WORDS = [
  "boom",
  "émoji 😀",
  "multi\nline",
  "tab\there",
  "quote's",
  '"dq"',
  "back\\slash",
  "",
  " ",
  "{0} %s {}",
  "\r\nCRLF\r\n",
  "\u0000nul",
  "Ä".repeat(300),
  "('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))",
  "\u2028line separator\u0085next line",
];
const LEVELS = [
  "WARNING",
  "DEPRECATED",
  "ERROR",
  "CRITICAL",
  "WARNINGS",
  "zeta",
  "",
  "constructor",
  "__proto__",
  "Ä",
  // What a Prometheus label value must escape, and what UTF-8 cannot carry.
  'q"uote\\back\nslash',
  "\ud800",
];
const STAGES = ["init-local", "init", "modules-config", "modules-final"];
const ODD_KEYS = [
  "blah",
  "Zed",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "a b",
  "",
  "Ä",
  "😀",
  "\uffff",
  "INIT",
  "10",
];
/** Keys of cloud-init's output that a v1 key of the same name overrides (status.py print_status: `**v1` last). */
export const COMPUTED_KEYS = [
  "boot_status_code",
  "status",
  "extended_status",
  "detail",
  "errors",
  "recoverable_errors",
  "last_update",
];
const DATASOURCES: Json[] = [
  null,
  "",
  "DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud-net][dsmode=net]",
  "DataSourceEc2Local",
  "DataSourceNone",
  "DataSourceLXD",
  " leading space",
  "DataSourceİẞ x",
  "ds=nocloud;s=http://10.0.0.1/",
  "DataSource",
  " ",
  "\t",
  "DataSourceNoCloud\u00a0nbsp x",
  "DataSourceEc2\nsecond line",
  new Raw("0"),
  false,
  [],
  new Obj([]),
];
/** Run directories a config may name; each holds a status.json of its own, so reading the wrong one shows. */
const RUN_DIRS = ["/run/ci2", "/var/run/ci3"];
/** YAML that cloud-init's config reading (PyYAML safe_load, YAML 1.1, then the merge) may or may not take. */
const CONFIGS = [
  "system_info:\n  paths:\n    run_dir: /run/ci2\n",
  "system_info: {paths: {run_dir: '/var/run/ci3'}}\n",
  'system_info:\r\n  paths:\r\n    run_dir: "/run/ci2"\r\n',
  "\ufeffsystem_info:\n  paths:\n    run_dir: /run/ci2\n",
  "base: &b {run_dir: /var/run/ci3}\nsystem_info:\n  paths:\n    <<: *b\n",
  "system_info: {paths: {run_dir: /var/run/ci3}}\nsystem_info: {paths: {run_dir: /run/ci2}}\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2/\n",
  "system_info:\n  paths:\n    run_dir: /run/cloud-init\n",
  "system_info:\n  paths:\n    cloud_dir: /var/lib/cloud2\n",
  "system_info:\n  paths: {}\n",
  "system_info: [\n",
  "---\na: 1\n---\nb: 2\n",
  "- system_info\n",
  "%YAML 1.1\n---\nsystem_info: {paths: {run_dir: /run/ci2}}\n",
  "system_info:\n\tpaths: {run_dir: /run/ci2}\n",
  "# only a comment\n",
  "",
  "system_info: !!map {paths: {run_dir: !!str /var/run/ci3}}\n",
  "conf_d: /etc/cloud/other.d\n",
  "conf_d: ''\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2 # a comment\n",
  "system_info:\n  paths:\n    run_dir: >-\n      /run/ci2\n",
  "system_info:\n  paths:\n    run_dir: run/ci2\n",
  "system_info:\n  paths:\n    run_dir: /run//ci2/./\n",
  "system_info:\n  paths:\n    run_dir: /run/../run/ci2\n",
  "system_info:\n  paths:\n    run_dir: '/run/ci2 '\n",
  "system_info:\n  paths:\n    run_dir: !!python/name:os.system\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\n    run_dir: /var/run/ci3\n",
  "system_info:\n  paths: &p\n    run_dir: /run/ci2\nother: *p\n",
  "system_info: {paths: {run_dir: /run/ci2}}\n...\n",
  "? system_info\n: paths:\n    run_dir: /var/run/ci3\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\n  paths:\n    cloud_dir: /x\n",
  "a: &a {run_dir: /run/ci2}\nb: &b {cloud_dir: /x}\nsystem_info:\n  paths:\n    <<: [*b, *a]\n",
  "system_info:\n  paths:\n    run_dir: |\n      /run/ci2\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\n---\n",
  "system_info:\n  paths:\n    run_dir: *nowhere\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\u0000\n",
  'system_info: {paths: {run_dir: "/run/ci2\\0"}}\n',
  "conf_d: 5\nsystem_info: {paths: {run_dir: /run/ci2}}\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\n  paths: null\n",
  "system_info: null\n",
  "system_info:\n  paths:\n    run_dir: ~\n",
  "system_info:\n  paths:\n    run_dir: yes\n",
  "system_info:\n  paths:\n    run_dir: 0x10\n",
  "system_info:\n  paths:\n    run_dir: /run/ci2\n    cloud_dir: !!binary aGk=\n",
  "system_info:\n  paths:\n    run_dir: !!str\n",
  "'system_info': {'paths': {'run_dir': '/run/ci2'}}\n",
  'system_info:\n  paths:\n    "run_dir": /var/run/ci3\n',
  "system_info:\n  paths:\n    run_dir: /run/ci2\n    run_dir: /run/cloud-init\n",
];
/** The CONFIGS the package README documents as read differently (see TreeTraits.configDiffers). */
const DOCUMENTED_CONFIGS = [
  /run_dir: !!str\n/,
  /run_dir: (yes|0x10|~)\n/,
  /\\0/,
  /conf_d: 5/,
  /(system_info|paths): null/,
  /run_dir: run\/ci2/,
  /!!binary/,
];
const UNIT = (active: string, file: string, sub: string, pid: string) =>
  `ActiveState=${active}\nUnitFileState=${file}\nSubState=${sub}\nMainPID=${pid}\n`;

/** Builds random state trees from one seed. */
export class TreeGenerator {
  private readonly rnd: () => number;
  private traits: TreeTraits = {
    acceptedByCloudInit: [],
    systemctlFails: false,
    shadowsComputed: false,
    cloudInitRaises: [],
    configDiffers: [],
  };

  constructor(seed: number) {
    this.rnd = mulberry32(seed);
  }

  private chance(p: number): boolean {
    return this.rnd() < p;
  }
  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  private sample<T>(items: readonly T[], max: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    for (let n = this.int(max + 1); n > 0 && pool.length > 0; n--)
      out.push(...pool.splice(this.int(pool.length), 1));
    return out;
  }

  private time(): Json | undefined {
    const r = this.rnd();
    if (r < 0.1) return undefined;
    if (r < 0.25) return null;
    if (r < 0.935)
      return new Raw(
        this.pick([
          "0",
          "0.0",
          "1",
          "12.5",
          "123.456",
          "1710355584.3603137",
          "-3",
          "1e-7",
          "125.678",
          "7.0",
          "42",
        ]),
      );
    if (r < 0.985)
      return new Raw(
        this.pick([
          "99999.99999949",
          "59.9999995",
          "0.9999995",
          "86399.9999995",
          "253402300799.9999996",
          "253402300799",
          "-0.0",
          "1e-300",
          "9007199254740993",
          "1e300",
          "1E2",
        ]),
      );
    if (r < 0.99) {
      const text = this.pick(["123", "", "soon"]);
      // Python's `start or 0` makes "" a 0; "123" makes max() raise.
      if (text === "") this.traits.acceptedByCloudInit.push("an empty string as a stage time");
      return text;
    }
    if (r < 0.995) {
      this.traits.acceptedByCloudInit.push("a boolean stage time");
      return this.pick([true, false]);
    }
    this.traits.acceptedByCloudInit.push("NaN/Infinity");
    return new Raw(this.pick(["NaN", "Infinity", "-Infinity"]));
  }

  private messages(): Json {
    const r = this.rnd();
    if (r < 0.97) {
      const words = this.sample(WORDS, 3);
      if (this.chance(0.02)) {
        words.push("lone \ud800 surrogate");
        this.traits.cloudInitRaises.push("a lone surrogate");
      }
      return words;
    }
    if (r < 0.985) {
      // Python prints these in the JSON and raises joining them in --long (unless a shadowing key hides them).
      this.traits.acceptedByCloudInit.push("a message that is not a string");
      return [this.pick(WORDS.slice(0, 5)), this.pick([new Raw("1"), null, new Obj([]), [], true])];
    }
    const odd = this.pick<Json>([null, "just a string", new Obj([["a", ["b"]]])]);
    // Python iterates a string's characters or a dict's keys as messages (or raises in --long: null).
    if (odd !== null) this.traits.acceptedByCloudInit.push("a string or an object as messages");
    return odd;
  }

  private stageObject(): Obj {
    const entries: [string, Json][] = [];
    for (const key of ["start", "finished"]) {
      const t = this.time();
      if (t !== undefined) entries.push([key, t]);
    }
    if (this.chance(0.75)) {
      const r = this.rnd();
      if (r < 0.55) entries.push(["errors", []]);
      else if (r < 0.98) entries.push(["errors", this.messages()]);
      else {
        this.traits.acceptedByCloudInit.push("a stage errors string");
        entries.push(["errors", "abc"]);
      }
    }
    if (this.chance(0.7)) {
      if (this.chance(0.98)) {
        const levels = this.sample(LEVELS.slice(0, this.chance(0.8) ? 5 : LEVELS.length), 2);
        // --long prints the level name, which Python cannot encode to UTF-8 stdout.
        if (levels.some((l) => /[\ud800-\udfff]/.test(l)))
          this.traits.cloudInitRaises.push("a lone surrogate level");
        entries.push(["recoverable_errors", new Obj(levels.map((l) => [l, this.messages()]))]);
      } else entries.push(["recoverable_errors", this.pick<Json>([null, [], "WARNING"])]);
    }
    if (this.chance(0.05)) entries.push(["extra", this.pick<Json>([new Raw("1"), "x", new Obj([])])]);
    // Shuffled, as another writer (or a hand) may order them.
    return new Obj(entries.sort(() => this.rnd() - 0.5));
  }

  private v1(): Obj {
    const entries: [string, Json][] = [];
    for (const key of this.sample(STAGES, 4)) {
      entries.push([
        key,
        this.chance(0.95) ? this.stageObject() : this.pick<Json>([null, "x", new Raw("3"), []]),
      ]);
    }
    if (this.chance(0.15)) entries.push([this.pick(ODD_KEYS), this.chance(0.7) ? this.stageObject() : "x"]);
    if (this.chance(0.04)) {
      entries.push([
        this.pick(COMPUTED_KEYS),
        this.chance(0.5) ? this.stageObject() : this.pick<Json>(["x", null, []]),
      ]);
      this.traits.shadowsComputed = true;
    }
    if (this.chance(0.75)) {
      const ds = this.chance(0.95) ? this.pick(DATASOURCES) : this.pick<Json>([new Raw("5"), ["x"]]);
      entries.push(["datasource", ds]);
    }
    if (this.chance(0.7)) {
      entries.push([
        "stage",
        this.pick<Json>([
          null,
          null,
          "init",
          "modules-final",
          "",
          new Raw("0"),
          new Raw("1.5"),
          ["a"],
          new Obj([]),
        ]),
      ]);
    }
    return new Obj(entries.sort(() => this.rnd() - 0.5));
  }

  private statusJson(): string | Buffer {
    const r = this.rnd();
    const indent = this.pick([undefined, "  ", "\t"]);
    if (r < 0.87) {
      const doc: [string, Json][] = [["v1", this.v1()]];
      if (this.chance(0.05)) doc.push(["v2", new Obj([])]);
      let text = serialize(new Obj(doc), indent);
      if (this.chance(0.05)) text = text.replaceAll("\n", "\r\n");
      return text;
    }
    if (r < 0.9) return this.pick(["{}", '{"v1": {}}', '{"v1": null}', '{"v1": []}', '{"v1": "x"}']);
    if (r < 0.93) return this.pick(["", " \n", "{", "[]", '"v1"', "null", '{"v1": {"init": {"start": 1,}}}']);
    if (r < 0.95) return `\ufeff${serialize(new Obj([["v1", this.v1()]]), indent)}`;
    if (r < 0.98) {
      // Two v1 keys: Python's json keeps the last.
      return serialize(
        new Obj([
          ["v1", this.v1()],
          ["v1", this.v1()],
        ]),
        indent,
      );
    }
    return Buffer.concat([
      Buffer.from('{"v1": {"datasource": "DataSource\xff'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
  }

  private cmdline(): string | Buffer {
    const tokens = this.sample(
      [
        "ro",
        "quiet",
        "cloud-init=enabled",
        "cloud-init=disabled",
        "ds=nocloud;s=http://10.0.0.1/",
        "xcloud-init=disabled",
        "cloud-init=disabledx",
        "console=ttyS0,115200n8",
        "cc: system_info: {paths: {run_dir: /run/ci2}} end_cc",
        "cc:system_info:%20%7Bpaths:%20%7Brun_dir:%20/var/run/ci3%7D%7D end_cc",
      ],
      3,
    );
    // Python's str.split() also splits on \x1c-\x1f, \x85, NBSP, U+2028, ideographic space...
    const sep = this.pick([
      " ",
      " ",
      "\t",
      "  ",
      "\x1c",
      "\x1f",
      "\u00a0",
      "\u2028",
      "\x85",
      "\u3000",
      "\x0b",
      "\u200b",
    ]);
    const text = `BOOT_IMAGE=/vmlinuz ${tokens.join(sep)}\n`;
    if (this.chance(0.04))
      return Buffer.concat([Buffer.from("ro \xff "), Buffer.from([0xff]), Buffer.from(text)]);
    return this.chance(0.04) ? "" : text;
  }

  /**
   * cloud.cfg, cloud.cfg.d, conf_d and user data that may move run_dir (cloudinit/cmd/devel read_cfg_paths), and
   * a status.json in each run_dir they name, with an error naming the directory so the one read shows.
   */
  private config(files: Map<string, string | Buffer | null | { link: string }>): void {
    for (const dir of RUN_DIRS) {
      if (this.chance(0.8)) {
        files.set(
          `${dir.slice(1)}/status.json`,
          `{"v1": {"init": {"start": 1, "finished": 2, "errors": ["from ${dir}"]}}}`,
        );
        if (this.chance(0.5)) files.set(`${dir.slice(1)}/result.json`, "{}");
        if (this.chance(0.5)) files.set(`${dir.slice(1)}/enabled`, "");
      }
    }
    const where = this.sample(
      [
        "etc/cloud/cloud.cfg",
        "etc/cloud/cloud.cfg.d/50-x.cfg",
        "etc/cloud/cloud.cfg.d/90-y.cfg",
        "etc/cloud/cloud.cfg.d/95-z.cfg.bak",
        "etc/cloud/other.d/10.cfg",
        "var/lib/cloud/instance/cloud-config.txt",
        "run/cloud-init/cloud.cfg",
        "run/ci2/cloud.cfg",
      ],
      3,
    );
    for (const file of where) {
      // A file that is not UTF-8 now and then (load_text_file decodes strictly).
      const text = this.chance(0.05) ? Buffer.from([0x73, 0x3a, 0x20, 0xff, 0x0a]) : this.pick(CONFIGS);
      if (typeof text !== "string" || DOCUMENTED_CONFIGS.some((re) => re.test(text))) {
        this.traits.configDiffers.push(`${file}: ${JSON.stringify(String(text))}`);
      }
      files.set(file, text);
    }
  }

  /** The next tree. */
  next(): StateTree {
    this.traits = {
      acceptedByCloudInit: [],
      systemctlFails: false,
      shadowsComputed: false,
      cloudInitRaises: [],
      configDiffers: [],
    };
    const files = new Map<string, string | Buffer | null | { link: string }>();
    files.set("etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n');
    files.set("run/cloud-init", null);
    if (this.chance(0.88)) files.set("run/systemd/system", null);
    if (this.chance(0.95)) files.set("proc/cmdline", this.cmdline());
    if (this.chance(0.12)) files.set("etc/cloud/cloud-init.disabled", "");
    if (this.chance(0.6)) files.set("run/cloud-init/enabled", "");
    if (this.chance(0.12)) files.set("run/cloud-init/disabled", "");
    if (this.chance(0.06)) {
      // A container: cloud-init reads PID 1's command line instead (util.py _get_cmdline, is_container).
      const environ = this.pick(["container=lxc\0HOME=/\0", "LIBVIRT_LXC_UUID=x\0", "PATH=/bin\0", "junk\0"]);
      if (environ.startsWith("junk")) this.traits.cloudInitRaises.push("an environ token without =");
      files.set("proc/1/environ", environ);
    }
    // OpenVZ: a container to cloud-init too (util.py is_container).
    if (this.chance(0.03)) files.set("proc/vz", null);
    files.set(
      "proc/1/cmdline",
      this.pick(["/sbin/init\0cloud-init=disabled\0", "/sbin/init\0", "/sbin/init\0splash\0"]),
    );
    // As cloud-init writes them: links into /var/lib/cloud/data (main.py status_wrapper), sometimes dangling.
    const link = this.chance(0.1);
    const stateDir = link ? "var/lib/cloud/data" : "run/cloud-init";
    if (link) {
      files.set("run/cloud-init/status.json", {
        link: this.pick(["/var/lib/cloud/data/status.json", "../../var/lib/cloud/data/status.json"]),
      });
      files.set("run/cloud-init/result.json", { link: "/var/lib/cloud/data/result.json" });
    }
    if (this.chance(0.85)) files.set(`${stateDir}/status.json`, this.statusJson());
    if (this.chance(0.55)) {
      const r = this.rnd();
      files.set(
        `${stateDir}/result.json`,
        r < 0.95
          ? this.pick([
              "{}",
              '{"v1": {"datasource": "DataSourceNone", "errors": []}}',
              '{"v1": {"errors": ["x"]}}',
              "{",
              "",
            ])
          : null,
      );
    }
    if (this.chance(0.15)) this.config(files);
    if (this.chance(0.5))
      files.set("var/lib/cloud/instance/boot-finished", "42.0 - Sat, 28 Nov 2026 10:00:00 +0000\n");
    const env: Record<string, string> = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" };
    if (this.chance(0.08))
      env.KERNEL_CMDLINE = this.pick(["cloud-init=disabled", "ro xcloud-init=disabledy", "ro"]);
    if (this.chance(0.04))
      env.DEBUG_PROC_CMDLINE = this.pick(["cloud-init=disabled", "", "ro cloud-init=enabled"]);
    const systemctl: Record<string, string> = {};
    const r = this.rnd();
    if (r < 0.05) {
      systemctl["show-environment"] = this.pick([
        "LANG=C.UTF-8\nKERNEL_CMDLINE=cloud-init=disabled\n",
        "X=xcloud-init=disabledy\n",
        "KERNEL_CMDLINE=cloud-init=enabled\n",
        "",
      ]);
    } else if (r < 0.35) {
      const unit = this.pick([
        "cloud-final.service",
        "cloud-config.service",
        "cloud-init-local.service",
        "cloud-init-main.service",
      ]);
      systemctl[unit] = this.pick([
        UNIT("failed", "enabled", "failed", "0"),
        UNIT("inactive", "disabled", "dead", "0"),
        UNIT("activating", "enabled", "start", "123"),
        UNIT("active", "enabled", "running", "0"),
        UNIT("active", "enabled", "running", "77"),
        UNIT("inactive", "static", "dead", "0"),
        UNIT("active", "enabled-runtime", "exited", "0"),
        UNIT("active", "generated", "exited", "0"),
        UNIT("active", "", "exited", "0"),
        UNIT("failed", "static", "dead", "0"),
        UNIT("inactive", "enabled", "failed", "0"),
        "ActiveState = active\nUnitFileState = enabled\nSubState = exited\nMainPID = 0\n",
        "ActiveState=active\r\nUnitFileState=enabled\r\nSubState=exited\r\nMainPID=0\r\n",
        "\n\nActiveState=active\nUnitFileState=enabled\nSubState=exited\nMainPID=0\n\n",
      ]);
    } else if (r < 0.39) {
      systemctl.fail = "Failed to connect to bus: No such file or directory\n";
      this.traits.systemctlFails = true;
    }
    return { files, env, systemctl, traits: this.traits };
  }
}

/** Writes a tree's files under `root` (null: a directory) and its `systemctl` answers into `systemctlDir`. */
export function writeStateTree(tree: StateTree, root: string, systemctlDir: string): void {
  mkdirSync(root, { recursive: true });
  mkdirSync(systemctlDir, { recursive: true });
  for (const [rel, content] of tree.files) {
    const file = path.join(root, rel);
    if (content === null) {
      mkdirSync(file, { recursive: true });
      continue;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === "object" && "link" in content) symlinkSync(content.link, file);
    else writeFileSync(file, content);
  }
  for (const [name, text] of Object.entries(tree.systemctl))
    writeFileSync(path.join(systemctlDir, name), text);
}
