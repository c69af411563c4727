import type { Deps } from "../deps.js";
import { registrySummary } from "../registry/registry-summary.js";
import { TOOLMGR_VERSION } from "../toolmgr-version.js";

/** `toolmgr version`: two lines, the tool's version and the registry revision it carries (spec: "Endpoints"). */
export async function versionCommand(_args: unknown, deps: Deps): Promise<number> {
  const registry = registrySummary();
  deps.io.stdout.write(
    `toolmgr v${TOOLMGR_VERSION}\nregistry ${registry.revision} (${registry.recipes.length} recipes from ${registry.source})\n`,
  );
  return 0;
}
