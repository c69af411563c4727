import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { asStoreError } from "../errors.js";
import { userToolsetFile } from "../project/toolset.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";
import { applyPrune, formatBytes, planPrune } from "../store/prune.js";
import { asPrune, waitOptions } from "../store/store-activity.js";

/** How long a prune waits for the syncs and locks of its store to end. */
const SYNC_WAIT_MS = 10 * 60 * 1000;

/**
 * `toolmgr prune [--dry-run]`: removes every install and cached artifact no live project (nor the user toolset)
 * pins, and the records of projects that are gone; one line per item, then the bytes freed. Never beside a sync.
 */
export async function pruneCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const dryRun = args.values["dry-run"] === true;
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const userToolset = userToolsetFile(deps.env, deps.runtime);
  try {
    // --dry-run only reads: it takes no marker, so it neither waits for a sync nor makes one run again.
    const items = dryRun
      ? await planPrune(layout, { userToolset })
      : await asPrune(
          layout,
          async () => {
            const planned = await planPrune(layout, { userToolset });
            await applyPrune(layout, planned);
            return planned;
          },
          waitOptions(deps, {
            timeoutMs: SYNC_WAIT_MS,
            onWait: (what) => deps.io.stderr.write(`toolmgr: waiting: ${what}\n`),
          }),
        );
    const freed = items.reduce((sum, item) => sum + item.bytes, 0);
    const lines = items.map((item) => `removed ${item.label}  ${formatBytes(item.bytes)}`);
    lines.push(`freed ${formatBytes(freed)} (${freed} bytes)`);
    deps.io.stdout.write(`${lines.join("\n")}\n`);
    if (dryRun) deps.io.stderr.write("toolmgr: --dry-run: nothing was removed\n");
    return 0;
  } catch (error) {
    throw asStoreError(error, layout.home);
  }
}
