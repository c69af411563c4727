/** Options of one command, in the shape `util.parseArgs` takes. */
export type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

/** What a command receives after its arguments were parsed. */
export interface CommandArgs {
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
}

/** One entry of the command table: help text and options, as data (the loaders live in main.ts). */
export interface CommandSpec {
  readonly summary: string;
  /** Usage line after `toolmgr `, for example `lock [--check] [<tool>...]`. */
  readonly usage: string;
  /** Option lines for `--help`: `[flag, description]`. */
  readonly optionHelp: readonly (readonly [string, string])[];
  readonly options: OptionSpec;
  /** Most positional arguments allowed (`Infinity` for a list). */
  readonly maxPositionals: number;
  /** Pass every argument after the command through untouched (`exec <command> [args...]`). */
  readonly passThrough?: boolean;
}

/**
 * The command table as data: names, usage and options. `main.ts` pairs each name with the loader of
 * `commands/<name>.ts`; commands and the completion script read this table without importing `main.ts`.
 */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  lock: {
    summary: "Resolve toolmgr.toml and write toolmgr.lock with a URL and digest per platform",
    usage: "lock [--check] [--global] [--allow-young <tool>]... [<tool>...]",
    optionHelp: [
      ["--check", "Write and download nothing; exit 3 when the lock would change, 0 when it is current"],
      ["--global", "Lock the user toolset ($XDG_CONFIG_HOME/toolmgr/toolmgr.toml) instead of the project"],
      ["--allow-young <tool>", "Lift min_release_age for this tool in this run (repeatable)"],
      ["<tool>...", "Re-resolve only these tools and keep every other pin"],
    ],
    options: {
      check: { type: "boolean" },
      global: { type: "boolean" },
      "allow-young": { type: "string", multiple: true },
    },
    maxPositionals: Number.POSITIVE_INFINITY,
  },
  sync: {
    summary: "Install every tool of toolmgr.lock for this platform into the shared store and write the shims",
    usage: "sync [--quiet] [--global]",
    optionHelp: [
      ["--quiet", "Print nothing but errors"],
      ["--global", "Install the user toolset's lock instead of the project's"],
    ],
    options: { quiet: { type: "boolean", short: "q" }, global: { type: "boolean" } },
    maxPositionals: 0,
  },
  exec: {
    summary: "Run a command with the pinned tools of the nearest toolmgr.lock first on PATH (never installs)",
    usage: "exec <command> [args...]",
    optionHelp: [],
    options: {},
    maxPositionals: Number.POSITIVE_INFINITY,
    passThrough: true,
  },
  which: {
    summary: "Print the path the shim for <command> would run here, or why there is none",
    usage: "which <command> | which --list",
    optionHelp: [
      ["--list", "Print the commands pinned here: the project's, then the user toolset's (completion)"],
    ],
    options: { list: { type: "boolean" } },
    maxPositionals: 1,
  },
  status: {
    summary: "Show each tool's constraint, pinned version, and whether it is installed and current",
    usage: "status [--json] [--global]",
    optionHelp: [
      ["--json", "Print JSON"],
      ["--global", "Report the user toolset instead of the project"],
    ],
    options: { json: { type: "boolean" }, global: { type: "boolean" } },
    maxPositionals: 0,
  },
  outdated: {
    summary:
      "Show per tool the pinned version, the newest its constraint allows, and the newest stable release",
    usage: "outdated [--json] [--global]",
    optionHelp: [
      ["--json", "Print JSON"],
      ["--global", "Report the user toolset instead of the project"],
    ],
    options: { json: { type: "boolean" }, global: { type: "boolean" } },
    maxPositionals: 0,
  },
  prune: {
    summary: "Remove installs, cached artifacts and API answers no live project or the user toolset uses",
    usage: "prune [--dry-run]",
    optionHelp: [["--dry-run", "Print what would be removed and the bytes it would free; remove nothing"]],
    options: { "dry-run": { type: "boolean" } },
    maxPositionals: 0,
  },
  list: {
    summary: "List the embedded registry's ecosystems, or one ecosystem's tools (offline)",
    usage: "list [<ecosystem>] [--json]",
    optionHelp: [["--json", "Print JSON"]],
    options: { json: { type: "boolean" } },
    maxPositionals: 1,
  },
  version: {
    summary: "Print the toolmgr version and the registry revision it carries",
    usage: "version",
    optionHelp: [],
    options: {},
    maxPositionals: 0,
  },
  mirror: {
    summary:
      "Upload every artifact of toolmgr.lock (all platforms) to an OCI registry that then serves as a mirror",
    usage: "mirror push oci://host[:port]/repository",
    optionHelp: [["--quiet", "Print nothing but errors"]],
    options: { quiet: { type: "boolean", short: "q" } },
    maxPositionals: 2,
  },
  completion: {
    summary: "Print a shell completion script (bash, zsh, fish, powershell)",
    usage: "completion <bash|zsh|fish|powershell>",
    optionHelp: [],
    options: {},
    maxPositionals: 1,
  },
  "lint-registry": {
    summary: "Check registry recipes and the host policy (maintainers; run in CI)",
    usage: "lint-registry [<dir>]",
    optionHelp: [],
    options: {},
    maxPositionals: 1,
  },
};
