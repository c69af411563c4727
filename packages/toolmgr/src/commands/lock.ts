import { dirname, join } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import type { CommandArgs } from "../command-table.js";
import { mapConcurrent } from "../concurrency.js";
import type { Deps } from "../deps.js";
import { asStoreError, LockfileError, ProjectFileError, UsageError } from "../errors.js";
import { formatLockfile, LOCKFILE_NAME, type LockedTool, type Lockfile, parseLockfile } from "../lockfile.js";
import { isLoopbackHost } from "../loopback-host.js";
import { detectPlatform, type Platform } from "../platform.js";
import { printable } from "../printable.js";
import { type ProjectConfig, type ProjectTool, readProjectFile } from "../project/project-file.js";
import { type LockedProject, staleReasons } from "../project/project-state.js";
import { type ReleaseAge, releaseAgeFromEnv } from "../project/release-age.js";
import { toolsetFile } from "../project/toolset.js";
import { hostAllows } from "../registry/host-policy.js";
import { findRecipe, hostPolicy } from "../registry/registry.js";
import { replaceFile } from "../replace-file.js";
import { type CooldownNote, noteText, refuseUndatedSources, releaseAgeOf } from "../resolve/cooldown.js";
import { lockPlatforms } from "../resolve/lock-platforms.js";
import { lockReport } from "../resolve/lock-report.js";
import { relockPlan } from "../resolve/relock.js";
import { resolveTool } from "../resolve/resolve.js";
import { commandName } from "../safe-names.js";
import { type CodeHostSession, openCodeHostSession } from "../session/network-session.js";
import { fetchArtifact } from "../store/artifact-cache.js";
import { type StoreLayout, storeLayout, toolmgrHome } from "../store/layout.js";
import { asSync, waitOptions } from "../store/store-activity.js";
import { recordVerifiedProject } from "../store/verified-project.js";

/**
 * Tools resolved at once. Each tool's requests form a short dependent chain, so resolving all of a typical project's
 * tools together keeps `lock` close to one chain's latency (bench/toolmgr/README.md "lock"); the HTTP client bounds the
 * requests in flight (under the code host's secondary limit of 100 concurrent requests), this only bounds the work
 * queued behind it.
 */
const CONCURRENCY = 128;

/** How long a lock waits for a `toolmgr prune` of its store to end. */
const PRUNE_WAIT_MS = 10 * 60 * 1000;

/**
 * `toolmgr lock [--check] [--global] [<tool>...]`: resolves every tool of the nearest `toolmgr.toml` (or the user
 * toolset's, with `--global`) for every platform and
 * writes `toolmgr.lock` atomically next to it, then records the project in the store (what `prune` knows it by).
 * With tool names, only those are re-resolved and every other pin is kept. With `--check`, nothing is written or
 * downloaded; exit 3 when the lock would change.
 */
export async function lockCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const check = args.values.check === true;
  const projectFile = await toolsetFile({ global: args.values.global === true, ...deps });
  const { project, text: projectText } = await readProjectFile(projectFile, findRecipe);
  const lockPath = join(dirname(project.path), LOCKFILE_NAME);
  const { existing, existingText } = await readExistingLock(lockPath, { check, deps });
  const only = new Set(args.positionals);
  for (const name of only) {
    if (!project.tools.some((t) => t.name === name)) {
      throw new ProjectFileError(
        `Cannot lock "${name}": it is not in ${project.path}; add it under [tools] first`,
      );
    }
  }
  const ageOf = releaseAges(project, { allowYoung: args.values["allow-young"], deps });
  // Before any request: a source that carries no release date cannot be checked against a window.
  refuseUndatedSources(project.tools, ageOf);
  const platforms = lockPlatforms(project.platforms, { existing, runtime: deps.runtime });
  // Before any request or download: a conflict is in the project file alone, and nothing may reach the cache for it.
  checkCommandConflicts(project.tools.map((t) => ({ name: t.name, bin: t.source.bin })));
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const notes = new Map<string, string>();
  const resolveAll = () =>
    resolveTools(project, { existing, only, platforms, layout, check, ageOf, notes }, deps);
  if (check) {
    const tools = await resolveAll();
    deps.io.stdout.write(lockReport(tools, { existing, check, notes }));
    return formatLockfile({ version: 1, tools }) === existingText ? 0 : 3;
  }
  let started = false;
  const lockAndRecord = async (options: { record: boolean }) => {
    started = true;
    const tools = await resolveAll();
    const text = formatLockfile({ version: 1, tools });
    if (text !== existingText) await writeLock(lockPath, text);
    if (options.record) {
      await recordLockedProject(
        layout,
        { project, lockPath, lock: { version: 1, tools }, projectText, lockText: text },
        { global: args.values.global === true, deps },
      );
    }
    const wrote = text === existingText ? `${LOCKFILE_NAME} is up to date` : `wrote ${LOCKFILE_NAME}`;
    return `${lockReport(tools, { existing, check, notes })}${wrote}\n`;
  };
  let out: string;
  try {
    // As a marked sync (store-activity.ts): a `prune` beside this lock waits until the lock and its record are
    // written, so it never removes an artifact the lock downloaded and pins; and this lock waits for a running prune.
    out = await asSync(
      layout,
      () => lockAndRecord({ record: true }),
      waitOptions(deps, {
        command: "lock",
        timeoutMs: PRUNE_WAIT_MS,
        onWait: (what) => deps.io.stderr.write(`toolmgr: waiting: ${what}\n`),
      }),
    );
  } catch (error) {
    if (started || !isUnwritable(error)) throw asStoreError(error, layout.home);
    // A store this user cannot write (a read-only image, another user's): the lock needs it only for downloads, so
    // it goes on unmarked and unrecorded, as before locks were recorded. Nothing it pins can be in a cache it cannot
    // write, so there is nothing for a prune to spare; a download it does need fails naming the store.
    try {
      out = await lockAndRecord({ record: false });
    } catch (inner) {
      throw asStoreError(inner, layout.home);
    }
  }
  deps.io.stdout.write(out);
  return 0;
}

/** An error that says the store (its `activity/` directory) cannot be created or written by this user. */
function isUnwritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "EACCES" || code === "EPERM" || code === "EROFS" || code === "ENOTDIR";
}

/**
 * The release cooldown of each tool (`min_release_age`, `TOOLMGR_MIN_RELEASE_AGE`), none for the tools
 * `--allow-young` names (checked against the project file: a name it lacks is a usage error).
 */
function releaseAges(
  project: ProjectConfig,
  options: { allowYoung: unknown; deps: Deps },
): (tool: ProjectTool) => ReleaseAge | undefined {
  const names = Array.isArray(options.allowYoung) ? options.allowYoung.map(String) : [];
  for (const name of names) {
    if (!project.tools.some((t) => t.name === name)) {
      throw new UsageError(
        `Cannot allow young releases of "${name}": it is not in ${project.path} (--allow-young names a tool of toolmgr.toml)`,
      );
    }
  }
  const allowYoung = new Set(names);
  const env = options.deps.env;
  // Parsed up front, so a bad TOOLMGR_MIN_RELEASE_AGE is refused even when no tool would consult it.
  releaseAgeFromEnv(env);
  return (tool) => (allowYoung.has(tool.name) ? undefined : releaseAgeOf(tool, { project, env }));
}

/** Resolves the project's tools (those `only` names, or all; the other pins kept) for `platforms`. */
async function resolveTools(
  project: ProjectConfig,
  context: {
    existing: Lockfile | undefined;
    only: ReadonlySet<string>;
    platforms: readonly Platform[];
    layout: StoreLayout;
    check: boolean;
    ageOf: (tool: ProjectTool) => ReleaseAge | undefined;
    /** Filled with each tool's cooldown note, as its line shows it. */
    notes: Map<string, string>;
  },
  deps: Deps,
): Promise<LockedTool[]> {
  const { existing, only, platforms, layout, check, ageOf, notes } = context;
  const now = deps.now();
  const session = await openCodeHostSession(deps, { layout, projectPath: project.path });
  const digest = trustOnFirstUse(session, { layout, check, deps });
  const policy = hostPolicy();
  let tools: LockedTool[];
  try {
    tools = await mapConcurrent(
      project.tools,
      async (tool): Promise<LockedTool> => {
        const plan = relockPlan(tool, { existing, only, platforms });
        if (plan.kind === "keep") return plan.tool;
        const age = ageOf(tool);
        // The pin the lock holds for this very constraint and source: kept, never moved, when the window holds it back.
        const same =
          plan.previous?.constraint === tool.constraint.text && plan.previous.source === tool.fingerprint;
        return resolveTool(tool, {
          cooldown: age && { age, now, pinned: same ? plan.previous?.version : undefined },
          onNote: (note: CooldownNote) => {
            const before = notes.get(tool.name);
            notes.set(tool.name, before === undefined ? noteText(note) : `${before}; ${noteText(note)}`);
          },
          codeHost: session.codeHost,
          platforms,
          previous: plan.previous,
          pin: plan.pin,
          checkPrivacy: session.hasToken,
          // The host policy names remote vendors; a loopback address is this machine (a test or a local mirror).
          allowHost: (o) => isLoopbackHost(o.host) || hostAllows(policy, o),
          digest: (artifact) => digest(tool.name, artifact),
        });
      },
      { limit: CONCURRENCY },
    );
  } finally {
    // After resolution, off its critical path; also after a failure, so a retry starts with what was learnt.
    session.finish();
  }
  warnChannelBuilds(project.tools, tools, deps);
  return tools;
}

/**
 * Records the project in the store as `sync` does (verified-project.ts), so `prune` knows a project that was only
 * locked and keeps what its lock pins (prune.ts): the artifacts this lock downloaded to compute their digests
 * stay in the cache for the next `sync`. Shim answers only when the lock is current for this machine.
 */
async function recordLockedProject(
  layout: StoreLayout,
  locked: LockedProject,
  options: { global: boolean; deps: Deps },
): Promise<void> {
  const { global, deps } = options;
  const platform = detectPlatform(deps.runtime);
  const current = platform !== undefined && staleReasons(locked, platform).size === 0 ? platform : undefined;
  await recordVerifiedProject(layout, locked, {
    cwd: deps.cwd,
    pwd: deps.env.PWD,
    platform: current,
    global,
  });
}

/** The existing lock and its text; one that does not parse is ignored with a warning (`--check` fails on it). */
async function readExistingLock(
  lockPath: string,
  options: { check: boolean; deps: Deps },
): Promise<{ existing: Lockfile | undefined; existingText: string | undefined }> {
  // A lock that is not a regular file (a FIFO would block the read) or is over its size limit is no lock to keep,
  // as one that does not parse: ignored with a warning, and `--check` fails on it.
  const existingText = await readBoundedText(lockPath, {
    kind: "lock",
    refuse: (m) => new LockfileError(m),
  }).catch((error: unknown) => {
    if (!(error instanceof LockfileError)) return undefined;
    if (options.check) throw error;
    options.deps.io.stderr.write(`toolmgr: ignoring the existing lock: ${printable(error.message)}\n`);
    return undefined;
  });
  if (existingText === undefined) return { existing: undefined, existingText };
  try {
    return { existing: parseLockfile(existingText), existingText };
  } catch (error) {
    if (options.check || !(error instanceof LockfileError)) throw error;
    options.deps.io.stderr.write(`toolmgr: ignoring the existing lock: ${printable(error.message)}\n`);
    return { existing: undefined, existingText };
  }
}

/**
 * Checksum rule 2: an artifact without a host digest is downloaded once into the cache and hashed, with progress as
 * `sync` shows it. `--check` downloads nothing (a new artifact already means a change).
 */
function trustOnFirstUse(
  session: CodeHostSession,
  options: { layout: StoreLayout; check: boolean; deps: Deps },
): (tool: string, artifact: { url: string; apiUrl?: string | undefined }) => Promise<string> {
  const { layout, check, deps } = options;
  const progress = downloadProgress(deps);
  return async (tool, artifact) => {
    if (check) return "0".repeat(64);
    try {
      const cached = await fetchArtifact(
        { tool, url: artifact.url, apiUrl: artifact.apiUrl },
        {
          layout,
          client: session.client,
          hasToken: session.hasToken,
          mirrors: session.mirrors,
          onProgress: ({ received, total }) => progress.draw(tool, { received, total }),
        },
      );
      progress.done(tool, { url: artifact.url, cacheHit: cached.cacheHit });
      return cached.sha256;
    } catch (error) {
      throw asStoreError(error, layout.home);
    }
  };
}

/** Atomic: a reader sees the old lock or the new one, and a failure before this point left the old one untouched. */
async function writeLock(lockPath: string, text: string): Promise<void> {
  try {
    await replaceFile(lockPath, text);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new LockfileError(
      `Cannot write ${LOCKFILE_NAME} in "${dirname(lockPath)}": ${code}; check that the project directory is writable`,
      { cause },
    );
  }
}

/**
 * One warning for every channel-build pin (`nightly-<commit>`): projects such as foundry delete old nightly releases
 * (foundry-rs/foundry#5818), and then a lock that pinned one cannot sync anywhere that lacks a copy.
 */
function warnChannelBuilds(wanted: readonly ProjectTool[], tools: readonly LockedTool[], deps: Deps): void {
  const channel = new Set(
    wanted
      .filter((t) => t.constraint.kind === "channel" || t.constraint.kind === "channel-commit")
      .map((t) => t.name),
  );
  const pins = tools.filter((t) => channel.has(t.name)).map((t) => `${t.name} ${t.version}`);
  if (pins.length === 0) return;
  deps.io.stderr.write(
    `toolmgr: warning: ${pins.join(", ")} ${pins.length === 1 ? "is a channel build" : "are channel builds"}: such builds may disappear upstream (they are deleted when newer ones come), and then this lock cannot sync. Pin a release instead, or keep a copy in a mirror (\`toolmgr mirror push oci://...\`, TOOLMGR_MIRRORS)\n`,
  );
}

function downloadProgress(deps: Deps): {
  draw(tool: string, p: { received: number; total: number | undefined }): void;
  done(tool: string, d: { url: string; cacheHit: boolean }): void;
} {
  const tty = deps.io.stderr.isTTY === true;
  let lastDraw = 0;
  const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
  return {
    draw(tool, { received, total }) {
      const now = deps.now().getTime();
      if (!tty || now - lastDraw < 100) return;
      lastDraw = now;
      deps.io.stderr.write(`\r\x1b[Kdownloading ${tool}: ${mb(received)}${total ? `/${mb(total)}` : ""} MB`);
    },
    done(tool, { url, cacheHit }) {
      if (tty) deps.io.stderr.write("\r\x1b[K");
      else if (!cacheHit) deps.io.stderr.write(`downloaded ${tool} (${url}) to compute its sha256\n`);
    },
  };
}

/** Two tools providing one command would make the shim's choice depend on order: refuse it. */
function checkCommandConflicts(
  tools: readonly { readonly name: string; readonly bin: readonly string[] }[],
): void {
  // Compared without case: on macOS and Windows file systems `Forge` and `forge` are one shim.
  const owner = new Map<string, { tool: string; command: string }>();
  for (const tool of tools) {
    for (const bin of tool.bin) {
      const command = commandName(bin);
      const key = command.toLowerCase();
      const other = owner.get(key);
      if (other !== undefined) {
        throw new ProjectFileError(
          other.tool === tool.name
            ? `Cannot lock "${tool.name}": it lists the command "${command}" twice ("${other.command}" and "${command}"); list each executable once`
            : `Cannot lock: the command "${command}" is provided by both "${other.tool}" and "${tool.name}"; keep one of them in toolmgr.toml`,
        );
      }
      owner.set(key, { tool: tool.name, command });
    }
  }
}
