import { UsageError } from "./errors.js";

/** Output formats of the status command; `tabular` and `cloud-init-json` mirror cloud-init byte for byte. */
export const FORMATS = ["json", "yaml", "tabular", "cloud-init-json", "prometheus"] as const;
export type Format = (typeof FORMATS)[number];

const COMMANDS = ["status", "schema", "validate", "convert", "report"] as const;
export type CommandName = (typeof COMMANDS)[number];

/** The parsed command line. */
export interface Flags {
  command: CommandName;
  /** `--format`; undefined means the command's default (tabular for status, json for convert). */
  format: Format | undefined;
  long: boolean;
  wait: boolean;
  /** `--timeout` in seconds; implies `--wait`. */
  timeout: number | undefined;
  /** `--allow-degraded`: exit 0 instead of 2 for recoverable errors only (env BOOTSTATUS_ALLOW_DEGRADED too). */
  allowDegraded: boolean;
  /** `--quiet`: no summary on stderr (cloud-init has no --quiet; stdout is never affected). */
  quiet: boolean;
  root: string | undefined;
  /** `--explain`: the stages, modules, tracebacks and warnings of cloud-init.log, after the usual output. */
  explain: boolean;
  /** `--strict` (with `--explain`): a module failure in the log is an error even when status.json has none. */
  strict: boolean;
  /** `--wait-for-reboot`: keep waiting across a reboot the boot asked for (default yes; `no`: as cloud-init). */
  waitForReboot: boolean;
  /** `report --to URL`: where to send the report. */
  to: string | undefined;
  help: boolean;
  version: boolean;
  /** Positional file operand of validate/convert (`-` or absent means stdin). */
  file: string | undefined;
}

interface FlagSpec {
  name: string;
  short?: string;
  metavar?: string;
  help: string;
  /** Only the status and report commands read it; given to another command it is refused rather than ignored. */
  statusOnly?: boolean;
  /** Only the report command reads it. */
  reportOnly?: boolean;
  apply(flags: Flags, value: string): void;
}

function parseFormat(value: string): Format {
  const found = FORMATS.find((f) => f === value);
  if (found === undefined) {
    const choices = FORMATS.map((f) => `'${f}'`).join(", ");
    throw new UsageError(`argument --format: invalid choice: '${value}' (choose from ${choices})`);
  }
  return found;
}

function parseYesNo(name: string, value: string): boolean {
  if (value === "yes") return true;
  if (value === "no") return false;
  throw new UsageError(`argument --${name}: invalid choice: '${value}' (choose from 'yes', 'no')`);
}

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0) {
    throw new UsageError(`argument --timeout: invalid value: '${value}' (expected seconds, a number >= 0)`);
  }
  return seconds;
}

/** The flag table: one entry per flag, with the help text printed by --help. */
export const FLAG_SPECS: readonly FlagSpec[] = [
  {
    name: "help",
    short: "h",
    help: "show this help message and exit",
    apply: (f) => {
      f.help = true;
    },
  },
  {
    name: "version",
    help: "print the version and exit",
    apply: (f) => {
      f.version = true;
    },
  },
  {
    name: "format",
    metavar: "FORMAT",
    help: "one of json, yaml, tabular, cloud-init-json, prometheus (default: tabular; convert: json)",
    apply: (f, v) => {
      f.format = parseFormat(v);
    },
  },
  {
    name: "long",
    statusOnly: true,
    short: "l",
    help: "report the long format of statuses, with stage detail and error messages",
    apply: (f) => {
      f.long = true;
    },
  },
  {
    name: "wait",
    statusOnly: true,
    short: "w",
    help: "block until cloud-init is done or disabled",
    apply: (f) => {
      f.wait = true;
    },
  },
  {
    name: "timeout",
    statusOnly: true,
    metavar: "SECONDS",
    help: "wait at most SECONDS (implies --wait), then print the current status and exit 3",
    apply: (f, v) => {
      f.timeout = parseTimeout(v);
      f.wait = true;
    },
  },
  {
    name: "allow-degraded",
    statusOnly: true,
    help: "exit 0, not 2, when cloud-init has recoverable errors only (env BOOTSTATUS_ALLOW_DEGRADED=1)",
    apply: (f) => {
      f.allowDegraded = true;
    },
  },
  {
    name: "quiet",
    statusOnly: true,
    help: "print no summary of what went wrong on stderr (stdout is the same either way)",
    apply: (f) => {
      f.quiet = true;
    },
  },
  {
    name: "explain",
    statusOnly: true,
    help: "after the status, what cloud-init.log says: stages, failed modules, tracebacks, warnings, output",
    apply: (f) => {
      f.explain = true;
    },
  },
  {
    name: "strict",
    statusOnly: true,
    help: "with --explain: a module failure in cloud-init.log is an error (exit 1) even if status.json has none",
    apply: (f) => {
      f.strict = true;
    },
  },
  {
    name: "wait-for-reboot",
    statusOnly: true,
    metavar: "yes|no",
    help: "with --wait: wait across a reboot the boot asked for, for the next boot's result (default: yes)",
    apply: (f, v) => {
      f.waitForReboot = parseYesNo("wait-for-reboot", v);
    },
  },
  {
    name: "to",
    reportOnly: true,
    metavar: "URL",
    help: "report: https://... (POST, signed), pushgateway[s]://host:port/job/<job>[/label/value...] (PUT)",
    apply: (f, v) => {
      f.to = v;
    },
  },
  {
    name: "root",
    statusOnly: true,
    metavar: "DIR",
    help: "read cloud-init's state under DIR instead of / (env BOOTSTATUS_ROOT)",
    apply: (f, v) => {
      f.root = v;
    },
  },
];

/** The argparse-style usage line printed on --help and before every usage error. */
export function usageLine(): string {
  const opts = FLAG_SPECS.map((s) => {
    const name = s.short === undefined ? `--${s.name}` : `-${s.short}`;
    return s.metavar === undefined ? `[${name}]` : `[--${s.name} ${s.metavar}]`;
  });
  return `usage: bootstatus ${opts.join(" ")} [{status,schema,validate,convert,report}] [FILE]\n`;
}

// The options of `cloud-init status` itself (cloudinit/cmd/status.py get_parser, plus argparse's -h).
const CLOUD_INIT_OPTIONS = ["help", "format", "long", "wait"];

/** How argparse names an option in its messages: `-l/--long` when it has a short form. */
function optionName(spec: FlagSpec): string {
  return spec.short === undefined ? `--${spec.name}` : `-${spec.short}/--${spec.name}`;
}

function ignoredArgument(spec: FlagSpec, explicit: string): UsageError {
  return new UsageError(`argument ${optionName(spec)}: ignored explicit argument '${explicit}'`);
}

function findLong(name: string): FlagSpec {
  const exact = FLAG_SPECS.find((s) => s.name === name);
  if (exact !== undefined) return exact;
  // argparse accepts any unambiguous prefix of a long option (allow_abbrev).
  const matches = FLAG_SPECS.filter((s) => s.name.startsWith(name));
  const [only] = matches;
  if (matches.length === 1 && only !== undefined && name !== "") return only;
  // A prefix cloud-init accepts keeps its meaning there (`--wai` is --wait), although an option of ours
  // (--wait-for-reboot) shares it: a command line written for cloud-init works unchanged.
  const [theirs, ...more] = matches.filter((s) => CLOUD_INIT_OPTIONS.includes(s.name));
  if (theirs !== undefined && more.length === 0 && name !== "") return theirs;
  if (matches.length > 1) {
    const names = matches.map((s) => `--${s.name}`).join(", ");
    throw new UsageError(`ambiguous option: --${name} could match ${names}`);
  }
  throw new UsageError(`unrecognized arguments: --${name}`);
}

/**
 * A bundle of short switches as argparse's consume_optional reads it (`-lw`; `-l=x` gives -l the argument `x`):
 * the first letter must be an option, and the rest that is not is an argument the last switch cannot take.
 */
function parseShorts(arg: string, use: (spec: FlagSpec) => void): void {
  const findShort = (ch: string | undefined) => FLAG_SPECS.find((s) => ch !== undefined && s.short === ch);
  const eq = arg.indexOf("=");
  let spec = findShort(arg[1]);
  if (spec === undefined) throw new UsageError(`unrecognized arguments: ${arg}`);
  let explicit = eq === 2 ? arg.slice(3) : arg.slice(2);
  if (eq === 2 && explicit === "") throw ignoredArgument(spec, explicit);
  for (;;) {
    use(spec);
    if (explicit === "") return;
    const next = findShort(explicit[0]);
    if (next === undefined) throw ignoredArgument(spec, explicit);
    spec = next;
    explicit = explicit.slice(1);
  }
}

/** Parses argv like argparse: flags anywhere, `--name value` or `--name=value`, bundled short flags. */
export function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = {
    command: "status",
    format: undefined,
    long: false,
    wait: false,
    timeout: undefined,
    allowDegraded: false,
    quiet: false,
    root: undefined,
    explain: false,
    strict: false,
    waitForReboot: true,
    to: undefined,
    help: false,
    version: false,
    file: undefined,
  };
  const positionals: string[] = [];
  const given = new Set<FlagSpec>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const spec = findLong(eq === -1 ? arg.slice(2) : arg.slice(2, eq));
      given.add(spec);
      if (spec.metavar === undefined) {
        if (eq !== -1) throw ignoredArgument(spec, arg.slice(eq + 1));
        spec.apply(flags, "");
      } else if (eq !== -1) {
        spec.apply(flags, arg.slice(eq + 1));
      } else {
        const value = argv[++i];
        if (value === undefined || (value.startsWith("-") && value !== "-" && !/^-\d/.test(value))) {
          throw new UsageError(`argument --${spec.name}: expected one argument`);
        }
        spec.apply(flags, value);
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      parseShorts(arg, (spec) => {
        given.add(spec);
        spec.apply(flags, "");
      });
      continue;
    }
    positionals.push(arg);
  }
  const [first, ...rest] = positionals;
  if (first !== undefined) {
    const command = COMMANDS.find((c) => c === first);
    if (command === undefined) {
      const choices = COMMANDS.map((c) => `'${c}'`).join(", ");
      throw new UsageError(`argument command: invalid choice: '${first}' (choose from ${choices})`);
    }
    flags.command = command;
  }
  const statusLike = flags.command === "status" || flags.command === "report";
  const misplaced = [...given].find((spec) => spec.statusOnly === true && !statusLike);
  if (misplaced !== undefined) {
    throw new UsageError(
      `argument --${misplaced.name}: only the status and report commands take it, not ${flags.command}`,
    );
  }
  const reportFlag = [...given].find((spec) => spec.reportOnly === true && flags.command !== "report");
  if (reportFlag !== undefined) {
    throw new UsageError(
      `argument --${reportFlag.name}: only the report command takes it, not ${flags.command}`,
    );
  }
  if (flags.strict && !flags.explain) throw new UsageError("argument --strict: needs --explain");
  const rebootFlag = [...given].some((spec) => spec.name === "wait-for-reboot");
  if (rebootFlag && flags.command === "status" && !flags.wait) {
    throw new UsageError("argument --wait-for-reboot: needs --wait or --timeout");
  }
  if (flags.command === "report" && flags.to === undefined) {
    throw new UsageError("the report command needs --to URL");
  }
  const takesFile = flags.command === "validate" || flags.command === "convert";
  if (takesFile && rest.length > 0) flags.file = rest.shift();
  if (rest.length > 0) throw new UsageError(`unrecognized arguments: ${rest.join(" ")}`);
  return flags;
}

// The spellings a pipeline may use for a switch in the environment; anything else is refused, never guessed.
const ENV_ON = ["1", "true", "yes", "on"];
const ENV_OFF = ["", "0", "false", "no", "off"];

/**
 * Reads an on/off environment variable such as BOOTSTATUS_ALLOW_DEGRADED: unset or one of ENV_OFF is off, one of
 * ENV_ON is on (case-insensitive); any other value is a usage error naming the variable.
 */
export function parseEnvSwitch(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const word = value.trim().toLowerCase();
  if (ENV_ON.includes(word)) return true;
  if (ENV_OFF.includes(word)) return false;
  throw new UsageError(
    `environment variable ${name}: invalid value '${value}' (expected 1 to turn it on, or 0 or empty to turn it off)`,
  );
}
