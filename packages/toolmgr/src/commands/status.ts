import { join } from "node:path";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { type Platform, requirePlatform } from "../platform.js";
import { scopedHints, toolsetFile } from "../project/toolset.js";
import { installProblem } from "../store/install-problem.js";
import { installDir, type StoreLayout, storeLayout, toolmgrHome } from "../store/layout.js";
import { type RecordedTool, recordedTools } from "../store/recorded-answers.js";

/** One line of `status`. */
interface StatusRow {
  readonly name: string;
  readonly constraint: string | null;
  readonly version: string | null;
  readonly installed: boolean;
  readonly stale: boolean;
  readonly reason?: string;
}

/** `toolmgr status [--json] [--global]`: per tool (of the project or the user toolset) the constraint, the pinned version, installed or not, stale or not. */
export async function statusCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const platform = requirePlatform(deps.runtime, "report");
  const global = args.values.global === true;
  const file = await toolsetFile({ global, ...deps });
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  // A project unchanged since it was found current is reported from the record, as the shims answer it.
  const recorded = await recordedTools(layout, { projectFile: file, platform });
  const rows =
    recorded !== undefined
      ? await recordedRows(recorded, { layout, global })
      : await checkedRows(file, { layout, global, platform });
  if (args.values.json === true) {
    deps.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else {
    // Columns as wide as their longest value: a nightly pin (`nightly-<40 hex>`) would otherwise run into the next.
    const width = Math.max(4, ...rows.map((r) => r.name.length)) + 2;
    const cWidth = Math.max(10, ...rows.map((r) => (r.constraint ?? "-").length)) + 2;
    const vWidth = Math.max(12, ...rows.map((r) => (r.version ?? "-").length)) + 2;
    const lines = rows.map(
      (r) =>
        `${r.name.padEnd(width)}${(r.constraint ?? "-").padEnd(cWidth)}${(r.version ?? "-").padEnd(vWidth)}${r.installed ? "installed" : "not installed"}${r.stale ? "  stale" : ""}${r.reason ? `  (${r.reason})` : ""}`,
    );
    deps.io.stdout.write(`${lines.join("\n")}\n`);
  }
  // As `lock --check`: 3 when something needs `toolmgr lock` or `toolmgr sync`; an error (no lock) is 1 via main.
  return rows.every((r) => r.installed && !r.stale) ? 0 : 3;
}

/** The rows of a recorded, current project: nothing stale; each install checked. */
function recordedRows(
  tools: readonly RecordedTool[],
  options: { layout: StoreLayout; global: boolean },
): Promise<StatusRow[]> {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Promise.all(
    sorted.map(async (tool) => {
      const install = tool.pins[0]?.install;
      const problem =
        install === undefined
          ? "not installed"
          : await installProblem(join(options.layout.toolsDir, tool.name, install), {
              bin: tool.pins.map((p) => p.bin),
            });
      return {
        name: tool.name,
        constraint: tool.constraint,
        version: tool.version,
        installed: problem === undefined,
        stale: false,
        ...(problem === undefined
          ? {}
          : { reason: scopedHints(`${problem}; run \`toolmgr sync\``, options.global) }),
      };
    }),
  );
}

/** The rows from both files parsed: staleness decided, each install checked. */
async function checkedRows(
  file: string,
  options: { layout: StoreLayout; global: boolean; platform: Platform },
): Promise<StatusRow[]> {
  const { layout, global, platform } = options;
  const [{ loadLockedProjectFile, staleReasons }, { lockedArtifact }] = await Promise.all([
    import("../project/project-state.js"),
    import("../lockfile.js"),
  ]);
  const locked = await loadLockedProjectFile(file);
  const stale = staleReasons(locked, platform);
  const names = [
    ...new Set([...locked.project.tools.map((t) => t.name), ...locked.lock.tools.map((t) => t.name)]),
  ].sort();
  return Promise.all(
    names.map(async (name) => {
      const wanted = locked.project.tools.find((t) => t.name === name);
      const pin = locked.lock.tools.find((t) => t.name === name);
      const artifact = pin && lockedArtifact(pin, platform);
      const problem =
        pin && artifact
          ? await installProblem(
              installDir(layout, { name, version: pin.version, sha256: artifact.sha256 }),
              pin,
            )
          : "not installed";
      return {
        name,
        constraint: wanted?.constraint.text ?? null,
        version: pin?.version ?? null,
        installed: problem === undefined,
        stale: stale.has(name),
        ...(stale.has(name)
          ? { reason: scopedHints(stale.get(name) ?? "", global) }
          : problem !== undefined && pin
            ? { reason: scopedHints(`${problem}; run \`toolmgr sync\``, global) }
            : {}),
      };
    }),
  );
}
