import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { UsageError } from "../errors.js";
import { registrySummary, toolsByEcosystem } from "../registry/registry-summary.js";

/** `toolmgr list [<ecosystem>] [--json]`: offline, from the embedded registry. */
export async function listCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const byEcosystem = toolsByEcosystem(registrySummary().recipes);
  const json = args.values.json === true;
  const wanted = args.positionals[0];
  if (wanted === undefined) {
    const rows = [...byEcosystem].map(([name, tools]) => ({ ecosystem: name, tools: tools.length }));
    if (json) {
      deps.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    } else {
      const width = Math.max(...rows.map((r) => r.ecosystem.length)) + 2;
      deps.io.stdout.write(
        rows
          .map((r) => `${r.ecosystem.padEnd(width)}${r.tools} ${r.tools === 1 ? "tool" : "tools"}\n`)
          .join(""),
      );
    }
    return 0;
  }
  // Ecosystem names are lower-case; match what users type without regard to case.
  const tools = byEcosystem.get(wanted.toLowerCase());
  if (tools === undefined) {
    throw new UsageError(
      `Cannot list ecosystem "${wanted}": the registry has no such ecosystem; choose one of ${[...byEcosystem.keys()].join(", ")}`,
    );
  }
  if (json) {
    const rows = tools.map((t) => ({ name: t.name, description: t.description, ecosystems: t.ecosystems }));
    deps.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else {
    const width = Math.max(...tools.map((t) => t.name.length)) + 2;
    deps.io.stdout.write(tools.map((t) => `${t.name.padEnd(width)}${t.description}\n`).join(""));
  }
  return 0;
}
