import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import type { Processes } from "../deps.js";
import { StoreError } from "../errors.js";
import type { StoreLayout } from "./layout.js";

// Who is changing the store: `sync` and `lock` (any number at once) and `prune` (alone), so that a prune beside a
// sync never leaves a pinned tool half-removed or missing, and one beside a lock never removes what the lock
// downloads and pins before its project is recorded (prune.ts). A `lock` always runs as a marked sync
// (`asSync`): its downloads cannot be run again cheaply, and it writes the lock and the record anyway.
//
// A sync first runs optimistically, writing no marker (a second sync writes no file: nao1215/block
// e2e/atago/sync.atago.yaml), and checks afterwards that no prune ran meanwhile: none is running and the prune
// count in `activity/prunes` (which a prune raises before it removes anything) is unchanged. Otherwise it runs again
// as a marked sync. A marked sync and a prune each announce themselves with a marker in `activity/` before they
// look for the other kind, so of two that start together at least one sees the other; a sync that sees a prune
// withdraws its marker and waits for it to end, so the two never wait on each other. A marker of a process that is
// gone (its pid no longer runs, or older than a day) is ignored.

const PRUNE_MARKER = "prune";
const PRUNE_COUNT = "prunes";
const SYNC_PREFIX = "sync-";
/** A marker this old was left by a process that was killed; no sync or prune takes a day. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
const POLL_MS = 50;

/** Where the markers live. */
export function activityDir(layout: StoreLayout): string {
  return join(layout.home, "activity");
}

/** What waiting looks like: the time source and a note for the user once a wait begins. */
export interface WaitOptions {
  /** The command waiting, for messages. @default "sync" */
  readonly command?: "sync" | "lock";
  readonly now: () => number;
  readonly processes: Processes;
  /** Longest wait, in milliseconds, before giving up with an error. */
  readonly timeoutMs: number;
  readonly onWait?: (what: string) => void;
}

/**
 * Runs `work` (which must be safe to run twice) as a sync: first without a marker; again as a marked sync
 * (`asSync`) when a prune ran or runs beside it, also when the first run failed.
 */
export async function asOptimisticSync<T>(
  layout: StoreLayout,
  work: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const dir = activityDir(layout);
  const count = await pruneCount(dir);
  const noPrune = async () => !(await isLive(join(dir, PRUNE_MARKER), options));
  const clear = async () => (await noPrune()) && (await pruneCount(dir)) === count;
  // Before the work the count was just read: only a running prune matters (one that ends meanwhile has raised the
  // count, which the check after the work sees).
  if (await noPrune()) {
    let result: { value: T } | undefined;
    try {
      result = { value: await work() };
    } catch (error) {
      if (await clear()) throw error;
    }
    if (result !== undefined && (await clear())) return result.value;
  }
  return asSync(layout, work, options);
}

/**
 * Runs `work` as a marked sync: beside other syncs, never beside a prune.
 *
 * @throws {StoreError} when a prune is still running after `timeoutMs`
 */
export async function asSync<T>(
  layout: StoreLayout,
  work: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const dir = activityDir(layout);
  await mkdir(dir, { recursive: true });
  const marker = join(dir, `${SYNC_PREFIX}${options.processes.pid}-${randomBytes(4).toString("hex")}`);
  await waitUntil(
    async () => {
      await writeMarker(marker, options.processes.pid);
      if (!(await isLive(join(dir, PRUNE_MARKER), options))) return undefined;
      await rm(marker, { force: true });
      return "a prune of this store is running";
    },
    options,
    () =>
      new StoreError(
        `Cannot ${options.command ?? "sync"}: a \`toolmgr prune\` of "${layout.home}" is still running after ${options.timeoutMs / 1000} s; wait for it, or remove ${join(dir, PRUNE_MARKER)} if no prune runs`,
      ),
  );
  try {
    return await work();
  } finally {
    await rm(marker, { force: true });
  }
}

/** `WaitOptions` for a command, from its deps (the clock and the processes). */
export function waitOptions(
  deps: { readonly now: () => Date; readonly processes: Processes },
  options: Omit<WaitOptions, "now" | "processes">,
): WaitOptions {
  return { ...options, now: () => deps.now().getTime(), processes: deps.processes };
}

/**
 * Runs `work` as the store's only prune, once no sync or lock runs.
 *
 * @throws {StoreError} when another prune runs, or a sync is still running after `timeoutMs`
 */
export async function asPrune<T>(
  layout: StoreLayout,
  work: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const dir = activityDir(layout);
  // A store that does not exist has nothing to prune, and prune creates none.
  if (
    !(await stat(layout.home).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  )
    return work();
  await mkdir(dir, { recursive: true });
  const marker = join(dir, PRUNE_MARKER);
  if (await isLive(marker, options)) {
    throw new StoreError(`Cannot prune "${layout.home}": another \`toolmgr prune\` is running (${marker})`);
  }
  await rm(marker, { force: true });
  try {
    // Exclusive create: of two prunes that got this far, one fails here.
    await (await open(marker, "wx")).close();
  } catch (cause) {
    throw new StoreError(`Cannot prune "${layout.home}": another \`toolmgr prune\` is running (${marker})`, {
      cause,
    });
  }
  await writeMarker(marker, options.processes.pid);
  try {
    await waitUntil(
      async () => {
        const names = await readdir(dir).catch(() => [] as string[]);
        let live = 0;
        for (const name of names.filter((n) => n.startsWith(SYNC_PREFIX))) {
          if (await isLive(join(dir, name), options)) live++;
        }
        return live === 0
          ? undefined
          : `${live} sync${live === 1 ? "" : "s"} or lock${live === 1 ? "" : "s"} of this store running`;
      },
      options,
      () =>
        new StoreError(
          `Cannot prune "${layout.home}": a \`toolmgr sync\` or \`toolmgr lock\` is still running after ${options.timeoutMs / 1000} s; try again when it is done`,
        ),
    );
    // Before anything is removed: an optimistic sync that overlaps this prune sees the count change.
    await writeFile(join(dir, PRUNE_COUNT), `${(await pruneCount(dir)) + 1}\n`);
    return await work();
  } finally {
    await rm(marker, { force: true });
  }
}

/**
 * Polls `busy` (what is in the way, or undefined once nothing is) until nothing is; says once what it waits for.
 *
 * @throws the error `timedOut` makes, after `timeoutMs`
 */
async function waitUntil(
  busy: () => Promise<string | undefined>,
  options: WaitOptions,
  timedOut: () => Error,
): Promise<void> {
  const deadline = options.now() + options.timeoutMs;
  for (let told = false; ; told = true) {
    const what = await busy();
    if (what === undefined) return;
    if (!told) options.onWait?.(what);
    if (options.now() > deadline) throw timedOut();
    await sleep(POLL_MS);
  }
}

async function pruneCount(dir: string): Promise<number> {
  const text = await readState(join(dir, PRUNE_COUNT)).catch(() => "0");
  const n = Number.parseInt(text, 10);
  return Number.isSafeInteger(n) ? n : 0;
}

async function writeMarker(path: string, pid: number): Promise<void> {
  const file = await open(path, "w");
  try {
    await file.writeFile(`${pid}\n`);
  } finally {
    await file.close();
  }
}

/** Whether a marker belongs to a process that still runs. */
async function isLive(path: string, options: WaitOptions): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || options.now() - info.mtimeMs > ABANDONED_AFTER_MS) return false;
  const pid = Number.parseInt(await readState(path).catch(() => ""), 10);
  // Not written yet (created an instant ago): count it as live.
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  return options.processes.isRunning(pid);
}

/** A marker's text; one that is not a regular file (a FIFO would block) or is too large reads as unreadable. */
function readState(path: string): Promise<string> {
  return readBoundedText(path, { kind: "state", refuse: (m) => new Error(m) });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
