import { parseArgs } from "node:util";
import type { Deps } from "./deps.js";
import { exitCodeFor, ToolmgrError, UsageError } from "./errors.js";

/** Options of one command, in the shape `util.parseArgs` takes. */
export type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

/** What a command receives after its arguments were parsed. */
export interface CommandArgs {
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
}

/** One entry of the command table: help text, options, and a loader so unused commands cost no start-up time. */
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
  readonly run: (args: CommandArgs, deps: Deps) => Promise<number>;
}

/**
 * The command table. Each command lives in `commands/<name>.ts` and is imported only when it runs (style guide §8:
 * lazy-load what a command needs, so `toolmgr version` starts fast).
 */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  lock: {
    summary: "Resolve toolmgr.toml and write toolmgr.lock with a URL and digest per platform",
    usage: "lock [--check] [<tool>...]",
    optionHelp: [
      ["--check", "Write and download nothing; exit 3 when the lock would change, 0 when it is current"],
      ["<tool>...", "Re-resolve only these tools and keep every other pin"],
    ],
    options: { check: { type: "boolean" } },
    maxPositionals: Number.POSITIVE_INFINITY,
    run: async (a, d) => (await import("./commands/lock.js")).lockCommand(a, d),
  },
  sync: {
    summary: "Install every tool of toolmgr.lock for this platform into the shared store and write the shims",
    usage: "sync [--quiet]",
    optionHelp: [["--quiet", "Print nothing but errors"]],
    options: { quiet: { type: "boolean", short: "q" } },
    maxPositionals: 0,
    run: async (a, d) => (await import("./commands/sync.js")).syncCommand(a, d),
  },
  exec: {
    summary: "Run a command with the pinned tools of the nearest toolmgr.lock first on PATH (never installs)",
    usage: "exec <command> [args...]",
    optionHelp: [],
    options: {},
    maxPositionals: Number.POSITIVE_INFINITY,
    passThrough: true,
    run: async (a, d) => (await import("./commands/exec.js")).execCommand(a, d),
  },
  which: {
    summary: "Print the path the shim for <command> would run here, or why there is none",
    usage: "which <command>",
    optionHelp: [],
    options: {},
    maxPositionals: 1,
    run: async (a, d) => (await import("./commands/which.js")).whichCommand(a, d),
  },
  status: {
    summary: "Show each tool's constraint, pinned version, and whether it is installed and current",
    usage: "status [--json]",
    optionHelp: [["--json", "Print JSON"]],
    options: { json: { type: "boolean" } },
    maxPositionals: 0,
    run: async (a, d) => (await import("./commands/status.js")).statusCommand(a, d),
  },
  list: {
    summary: "List the embedded registry's ecosystems, or one ecosystem's tools (offline)",
    usage: "list [<ecosystem>] [--json]",
    optionHelp: [["--json", "Print JSON"]],
    options: { json: { type: "boolean" } },
    maxPositionals: 1,
    run: async (a, d) => (await import("./commands/list.js")).listCommand(a, d),
  },
  version: {
    summary: "Print the toolmgr version and the registry revision it carries",
    usage: "version",
    optionHelp: [],
    options: {},
    maxPositionals: 0,
    run: async (a, d) => (await import("./commands/version.js")).versionCommand(a, d),
  },
  completion: {
    summary: "Print a shell completion script (bash, zsh, fish, powershell)",
    usage: "completion <bash|zsh|fish|powershell>",
    optionHelp: [],
    options: {},
    maxPositionals: 1,
    run: async (a, d) => (await import("./commands/completion.js")).completionCommand(a, d),
  },
  "lint-registry": {
    summary: "Check registry recipes and the host policy (maintainers; run in CI)",
    usage: "lint-registry [<dir>]",
    optionHelp: [],
    options: {},
    maxPositionals: 1,
    run: async (a, d) => (await import("./commands/lint-registry.js")).lintRegistryCommand(a, d),
  },
};

function usageText(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(0, ...names.map((n) => n.length)) + 2;
  return [
    "toolmgr pins developer tools per project: toolmgr.toml -> lock -> toolmgr.lock -> sync.",
    "",
    "Usage: toolmgr <command> [options]",
    "",
    "Commands:",
    ...names.map((n) => `  ${n.padEnd(width)}${COMMANDS[n]?.summary ?? ""}`),
    "",
    "Run `toolmgr <command> --help` for a command's options.",
    "",
  ].join("\n");
}

function commandHelp(name: string, spec: CommandSpec): string {
  const width = Math.max(10, ...spec.optionHelp.map(([f]) => f.length)) + 2;
  const lines = [spec.summary, "", `Usage: toolmgr ${spec.usage}`, "", "Options:"];
  for (const [flag, text] of [...spec.optionHelp, ["-h, --help", `Show help for ${name}`] as const]) {
    lines.push(`  ${flag.padEnd(width)}${text}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Runs the toolmgr command line and returns the exit code (0 success, 1 failure to act on, 2 usage, 3 drift). */
export async function main(argv: readonly string[], deps: Deps): Promise<number> {
  const { io } = deps;
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout).write(usageText());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V") return main(["version", ...rest], deps);
  const spec = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (spec === undefined)
      throw new UsageError(`Unknown command "${name}": run \`toolmgr --help\` for the list`);
    if (spec.passThrough === true && rest[0] !== "--help" && rest[0] !== "-h") {
      return await spec.run({ positionals: rest, values: {} }, deps);
    }
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({
        args: [...rest],
        options: { ...spec.options, help: { type: "boolean", short: "h" } },
        allowPositionals: true,
        strict: true,
      });
    } catch (cause) {
      throw new UsageError(`${(cause as Error).message.replace(/\. To specify.*$/s, "")} (toolmgr ${name})`, {
        cause,
      });
    }
    if (parsed.values.help === true) {
      io.stdout.write(commandHelp(name, spec));
      return 0;
    }
    if (parsed.positionals.length > spec.maxPositionals) {
      throw new UsageError(`Too many arguments for \`toolmgr ${name}\`: usage: toolmgr ${spec.usage}`);
    }
    return await spec.run({ positionals: parsed.positionals, values: parsed.values }, deps);
  } catch (error) {
    return reportError(error, deps);
  }
}

/** The one place where errors become messages and exit codes. */
function reportError(error: unknown, deps: Deps): number {
  if (error instanceof ToolmgrError) {
    deps.io.stderr.write(`toolmgr: ${error.message}\n`);
    if (error instanceof UsageError) deps.io.stderr.write("Run `toolmgr --help` for usage.\n");
  } else {
    // Not one of ours: a bug. Show the stack so it can be reported.
    deps.io.stderr.write(
      `toolmgr: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  return exitCodeFor(error);
}
