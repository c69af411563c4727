import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { lockedArtifact } from "../lockfile.js";
import { requirePlatform } from "../platform.js";
import { loadLockedProjectFile, staleReasons } from "../project/project-state.js";
import { scopedHints, toolsetFile } from "../project/toolset.js";
import { installProblem } from "../store/install.js";
import { installDir, storeLayout, toolmgrHome } from "../store/layout.js";

/** `toolmgr status [--json] [--global]`: per tool (of the project or the user toolset) the constraint, the pinned version, installed or not, stale or not. */
export async function statusCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const platform = requirePlatform(deps.runtime, "report");
  const global = args.values.global === true;
  const locked = await loadLockedProjectFile(await toolsetFile({ global, ...deps }));
  const stale = staleReasons(locked, platform);
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const names = [
    ...new Set([...locked.project.tools.map((t) => t.name), ...locked.lock.tools.map((t) => t.name)]),
  ].sort();
  const rows = await Promise.all(
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
