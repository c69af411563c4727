import type { CommandArgs } from "../command-table.js";
import { mapConcurrent } from "../concurrency.js";
import type { Deps } from "../deps.js";
import { ResolveError } from "../errors.js";
import type { CodeHost } from "../http/code-host.js";
import type { ProjectTool } from "../project/project-file.js";
import { loadLockedProjectFile } from "../project/project-state.js";
import { toolsetFile } from "../project/toolset.js";
import { chooseVersion } from "../resolve/resolve.js";
import { openCodeHostSession } from "../session/network-session.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";

/** Tools asked about at once (each is a short chain of requests; the HTTP client bounds what is in flight). */
const CONCURRENCY = 32;

/** One row of `toolmgr outdated`. */
interface OutdatedRow {
  readonly name: string;
  readonly constraint: string;
  readonly pinned: string;
  /** The newest the constraint allows now (a channel: `<channel>-<commit its tag points at now>`). */
  readonly wanted: string | null;
  /** The newest stable release overall; for a channel pin, the commit the channel's tag points at now. */
  readonly latest: string | null;
}

/**
 * `toolmgr outdated [--json] [--global]`: per tool of the nearest lock, the pinned version, the newest release its
 * constraint allows and the newest stable release overall (issue 31 item 4; jdx/mise#2784). Read-only: the same
 * code-host requests and remembered answers as `lock`, and nothing is written (not even the answers learnt).
 */
export async function outdatedCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const locked = await loadLockedProjectFile(
    await toolsetFile({ global: args.values.global === true, ...deps }),
  );
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const session = await openCodeHostSession(deps, { layout, projectPath: locked.project.path });
  let rows: OutdatedRow[];
  try {
    rows = await mapConcurrent(
      locked.lock.tools,
      async (pin): Promise<OutdatedRow> => {
        const tool = locked.project.tools.find((t) => t.name === pin.name);
        const base = {
          name: pin.name,
          constraint: tool?.constraint.text ?? pin.constraint,
          pinned: pin.version,
        };
        // A pin the project file no longer has: nothing says where it comes from (`toolmgr lock` drops it).
        if (tool === undefined) return { ...base, wanted: null, latest: null };
        return { ...base, ...(await newest(tool, session.codeHost)) };
      },
      { limit: CONCURRENCY },
    );
  } finally {
    session.finish({ remember: false });
  }
  if (args.values.json === true) {
    deps.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const table = [["tool", "constraint", "pinned", "wanted", "latest"], ...rows.map(cells)];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length)) + 2) ?? [];
  const lines = table.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("")
      .trimEnd(),
  );
  deps.io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

function cells(row: OutdatedRow): string[] {
  return [row.name, row.constraint, row.pinned, row.wanted ?? "-", row.latest ?? "-"];
}

async function newest(
  tool: ProjectTool,
  codeHost: CodeHost,
): Promise<{ wanted: string | null; latest: string | null }> {
  const c = tool.constraint;
  if (c.kind === "channel" || c.kind === "channel-commit") {
    // The commit the moving tag points at now is the news for a channel, whether or not its release is out yet.
    const sha = await codeHost.commit(tool.source.repo, c.channel);
    const now = sha === undefined ? null : `${c.channel}-${sha}`;
    return { wanted: c.kind === "channel" ? now : c.text, latest: now };
  }
  const [wanted, latest] = await Promise.all([
    c.kind === "prerelease" ? c.text : orNull(chooseVersion(tool, codeHost)),
    // Every stable release under the tag prefix: the empty prefix constraint.
    orNull(chooseVersion({ ...tool, constraint: { kind: "prefix", text: "", parts: [] } }, codeHost)),
  ]);
  return { wanted, latest };
}

/** A release choice, or null when nothing matches (a repository with no stable release yet). */
async function orNull(choice: Promise<string>): Promise<string | null> {
  try {
    return await choice;
  } catch (error) {
    if (error instanceof ResolveError) return null;
    throw error;
  }
}
