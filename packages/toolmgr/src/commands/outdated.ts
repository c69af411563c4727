import type { CommandArgs } from "../command-table.js";
import { mapConcurrent } from "../concurrency.js";
import type { Deps } from "../deps.js";
import { ResolveError, YoungReleaseError } from "../errors.js";
import type { CodeHost } from "../http/code-host.js";
import type { ProjectTool } from "../project/project-file.js";
import { loadLockedProjectFile } from "../project/project-state.js";
import { releaseAgeFromEnv } from "../project/release-age.js";
import { toolsetFile } from "../project/toolset.js";
import {
  type Cooldown,
  type CooldownNote,
  formatEligible,
  refuseUndatedSources,
  releaseAgeOf,
} from "../resolve/cooldown.js";
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
  /**
   * Only for a tool under a release cooldown: the newest release its constraint allows that the window holds back
   * (newer than `wanted`), or null.
   */
  readonly held_back?: HeldBack | null;
}

/** A release the cooldown holds back, in `outdated --json`. */
interface HeldBack {
  readonly version: string;
  readonly published_at: string;
  readonly eligible_at: string;
}

/**
 * `toolmgr outdated [--json] [--global]`: per tool of the nearest lock, the pinned version, the newest release its
 * constraint allows and the newest stable release overall (jdx/mise#2784). Read-only: the same
 * code-host requests and remembered answers as `lock`, and nothing is written (not even the answers learnt).
 */
export async function outdatedCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const locked = await loadLockedProjectFile(
    await toolsetFile({ global: args.values.global === true, ...deps }),
  );
  const { project } = locked;
  releaseAgeFromEnv(deps.env); // a bad value is refused even when no tool would consult it
  const ageOf = (tool: ProjectTool) => releaseAgeOf(tool, { project, env: deps.env });
  // As `lock` would: a source without release dates cannot be judged against a window (before any request).
  refuseUndatedSources(project.tools, ageOf);
  const now = deps.now();
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
        const age = ageOf(tool);
        // What `lock` would do now: the pin is kept when the window holds it back (same constraint).
        const pinned = pin.constraint === tool.constraint.text ? pin.version : undefined;
        const cooldown = age && { age, now, pinned };
        return { ...base, ...(await newest(tool, { codeHost: session.codeHost, cooldown })) };
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
  // The releases a window holds back, one line each after the table (the table keeps its columns).
  const held = rows.flatMap((r) =>
    r.held_back
      ? [
          `${r.name}: ${r.held_back.version} held back until ${formatEligible(new Date(r.held_back.eligible_at))}`,
        ]
      : [],
  );
  deps.io.stdout.write(`${[...lines, ...held].join("\n")}\n`);
  return 0;
}

function cells(row: OutdatedRow): string[] {
  return [row.name, row.constraint, row.pinned, row.wanted ?? "-", row.latest ?? "-"];
}

async function newest(
  tool: ProjectTool,
  options: { codeHost: CodeHost; cooldown: Cooldown | undefined },
): Promise<Pick<OutdatedRow, "wanted" | "latest" | "held_back">> {
  const { codeHost, cooldown } = options;
  const c = tool.constraint;
  if (c.kind === "channel" || c.kind === "channel-commit") {
    // The commit the moving tag points at now is the news for a channel, whether or not its release is out yet.
    const sha = await codeHost.commit(tool.source.repo, c.channel);
    const now = sha === undefined ? null : `${c.channel}-${sha}`;
    if (cooldown === undefined || c.kind === "channel-commit")
      return { wanted: c.kind === "channel" ? now : c.text, latest: now, ...heldBack(cooldown, []) };
    // Under a window `wanted` is the build `lock` would pin: the newest one old enough.
    const wanted = await wantedUnder(cooldown, chooseVersion(tool, { codeHost, cooldown }));
    return { wanted: wanted.version, latest: now, ...heldBack(cooldown, wanted.notes) };
  }
  const [wanted, latest] = await Promise.all([
    c.kind === "prerelease"
      ? { version: c.text, notes: [] }
      : wantedUnder(cooldown, chooseVersion(tool, { codeHost, cooldown })),
    // Every stable release under the tag prefix (the empty prefix constraint), whatever its age.
    orNull(chooseVersion({ ...tool, constraint: { kind: "prefix", text: "", parts: [] } }, { codeHost })),
  ]);
  return { wanted: wanted.version, latest: latest?.version ?? null, ...heldBack(cooldown, wanted.notes) };
}

/** The version `lock` would pin and what the window held back; none when the window holds back everything. */
async function wantedUnder(
  cooldown: Cooldown | undefined,
  choice: Promise<{ version: string; notes: readonly CooldownNote[] }>,
): Promise<{ version: string | null; notes: readonly CooldownNote[] }> {
  try {
    return await choice;
  } catch (error) {
    if (error instanceof YoungReleaseError && cooldown !== undefined)
      return { version: null, notes: [{ kind: "held-back", age: cooldown.age, ...error.heldBack }] };
    if (error instanceof ResolveError) return { version: null, notes: [] };
    throw error;
  }
}

/** The `held_back` field: only under a window, null when it holds nothing back (or only kept a young pin). */
function heldBack(
  cooldown: Cooldown | undefined,
  notes: readonly CooldownNote[],
): Pick<OutdatedRow, "held_back"> {
  if (cooldown === undefined) return {};
  const note = notes.find((n) => n.kind === "held-back");
  if (note === undefined) return { held_back: null };
  return {
    held_back: {
      version: note.version,
      published_at: note.publishedAt.toISOString(),
      eligible_at: note.eligibleAt.toISOString(),
    },
  };
}

/** A release choice, or null when nothing matches (a repository with no stable release yet). */
async function orNull<T>(choice: Promise<T>): Promise<T | null> {
  try {
    return await choice;
  } catch (error) {
    if (error instanceof ResolveError) return null;
    throw error;
  }
}
