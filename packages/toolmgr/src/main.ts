import { parseArgs } from "node:util";
import { COMMANDS, type CommandArgs, type CommandSpec } from "./command-table.js";
import type { Deps } from "./deps.js";
import { exitCodeFor, ToolmgrError, UsageError } from "./errors.js";
import { printable } from "./printable.js";

/**
 * The loader of each command: `commands/<name>.ts` is imported only when it runs, so `toolmgr version` starts fast
 * (the style guide's rule 8: lazy-load what only one command needs).
 */
const LOADERS: Readonly<Record<string, (args: CommandArgs, deps: Deps) => Promise<number>>> = {
  lock: async (a, d) => (await import("./commands/lock.js")).lockCommand(a, d),
  sync: async (a, d) => (await import("./commands/sync.js")).syncCommand(a, d),
  exec: async (a, d) => (await import("./commands/exec.js")).execCommand(a, d),
  which: async (a, d) => (await import("./commands/which.js")).whichCommand(a, d),
  status: async (a, d) => (await import("./commands/status.js")).statusCommand(a, d),
  list: async (a, d) => (await import("./commands/list.js")).listCommand(a, d),
  version: async (a, d) => (await import("./commands/version.js")).versionCommand(a, d),
  mirror: async (a, d) => (await import("./commands/mirror.js")).mirrorCommand(a, d),
  outdated: async (a, d) => (await import("./commands/outdated.js")).outdatedCommand(a, d),
  prune: async (a, d) => (await import("./commands/prune.js")).pruneCommand(a, d),
  completion: async (a, d) => (await import("./commands/completion.js")).completionCommand(a, d),
  "lint-registry": async (a, d) => (await import("./commands/lint-registry.js")).lintRegistryCommand(a, d),
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
  const run = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  try {
    if (spec === undefined || run === undefined)
      throw new UsageError(`Unknown command "${name}": run \`toolmgr --help\` for the list`);
    if (spec.passThrough === true && rest[0] !== "--help" && rest[0] !== "-h") {
      return await run({ positionals: rest, values: {} }, deps);
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
    return await run({ positionals: parsed.positionals, values: parsed.values }, deps);
  } catch (error) {
    return reportError(error, deps);
  }
}

/** The one place where errors become messages and exit codes. */
function reportError(error: unknown, deps: Deps): number {
  if (error instanceof ToolmgrError) {
    deps.io.stderr.write(`toolmgr: ${printable(error.message)}\n`);
    if (error instanceof UsageError) deps.io.stderr.write("Run `toolmgr --help` for usage.\n");
  } else {
    // Not one of ours: a bug. Show the stack so it can be reported.
    deps.io.stderr.write(
      `toolmgr: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  return exitCodeFor(error);
}
