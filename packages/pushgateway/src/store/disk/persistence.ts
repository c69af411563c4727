import { readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { getHeapStatistics } from "node:v8";
import { goPathError } from "@local/go-compat/os-error";
import { PersistenceError } from "../../errors.js";
import { readRegularFile } from "../../regular-file.js";
import type { Group, PersistedGroup } from "../metric-store.js";
import type { PersistenceDone, PersistenceJob } from "./persistence-worker.js";
import { type RenderedGroup, renderedGroup } from "./rendered-group.js";
import { upstreamGroups } from "./upstream-persistence.js";

/**
 * Format version of the JSON persistence file earlier versions of ours wrote. It is still read; files are now written
 * in upstream's gob format (upstream-persistence.ts), so a team can move between upstream and ours both ways.
 */
const PERSISTENCE_VERSION = 1;

/**
 * Lines of stored series sent to the persistence worker per message. Copying a message is the only work the write
 * leaves on the event loop: 20,000 lines took 2-30 ms each (a CPU profile at 1e6 series); 5,000 keep it to a few.
 */
const LINES_PER_BATCH = 5_000;
/** Event-loop time spent taking the snapshot before a turn of the loop is given to requests, whatever the batch. */
const SLICE_MS = 4;

/**
 * Writes the groups atomically in upstream's format (a gob, storage/diskmetricstore.go `persist`) on a worker thread
 * (persistence-worker.ts): a temporary file beside the target, fsync, rename; a crash leaves the old file. The event
 * loop only hands the stored lines over, in batches with a turn of the loop between them, so pushes and scrapes go
 * on while the file is written (bench/pushgateway/README.md: event-loop blocking at 1e6 series).
 *
 * @throws {Error} what writing the file failed with (the worker's message)
 */
export async function writePersistence(path: string, groups: readonly Group[]): Promise<void> {
  // A large young generation: the worker makes short-lived objects by the million (the launcher sizes V8 for memory,
  // which shrinks it to a few MB and made the write several times slower).
  // Loaded at the first write: a gateway without --persistence.file never needs node:worker_threads.
  const { Worker } = await import("node:worker_threads");
  const worker = new Worker(new URL("./persistence-worker.js", import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: 64 },
  });
  try {
    const done = new Promise<PersistenceDone>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the persistence worker exited with code ${code}`)));
    });
    let batch: RenderedGroup[] = [];
    let lines = 0;
    let sliceStart = performance.now();
    for (const g of groups) {
      const rendered = renderedGroup(g);
      batch.push(rendered);
      for (const f of rendered.families) lines += f.lines.length;
      const full = lines >= LINES_PER_BATCH;
      if (full) {
        worker.postMessage({ kind: "groups", groups: batch } satisfies PersistenceJob);
        batch = [];
        lines = 0;
      }
      // Many small groups cost the loop per group, not per line: the time bounds the slice too.
      if (full || performance.now() - sliceStart >= SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    worker.postMessage({ kind: "groups", groups: batch } satisfies PersistenceJob);
    worker.postMessage({ kind: "write", path } satisfies PersistenceJob);
    const answer = await done;
    if (!answer.ok) throw new Error(answer.message);
  } finally {
    await worker.terminate();
  }
}

/**
 * Largest persistence file read: a quarter of V8's heap limit (the store it fills takes about as much again as the
 * file). Named in the refusal with how to raise it; 1 GiB under the default 4 GiB heap, where a file of 1e6 series
 * is about 80 MB (bench/pushgateway/README.md).
 */
export function maxPersistenceBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4);
}

/**
 * Reads a persistence file: upstream's gob (1.5 to 1.11, and what ours writes) or the JSON of earlier versions of
 * ours. An absent file is an empty store; a file neither reads is an error, so it is never overwritten. The groups
 * are handed to `restore` one at a time as they are decoded, so only one group is held in structured form; with
 * `stored`, the common families come in the store's form (`rendered`), never structured.
 *
 * @throws {PersistenceError} naming the file and what is wrong
 */
export async function loadPersistence(
  path: string,
  restore: (group: PersistedGroup) => void,
  options: { stored?: boolean } = {},
): Promise<void> {
  let data: Buffer;
  try {
    data = await readRegularFile(path, {
      maxBytes: maxPersistenceBytes(),
      what: "--persistence.file (a quarter of V8's heap limit; raise it with NODE_OPTIONS=--max-old-space-size=<MiB>)",
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new PersistenceError(
      `Cannot read persistence file "${path}": ${goPathError(error as NodeJS.ErrnoException)}`,
      { cause: error },
    );
  }
  if (data.length === 0) return;
  if (data[0] === 0x7b /* { */) {
    for (const g of readJsonPersistence(path, data.toString("utf8"))) restore(g);
    return;
  }
  try {
    for (const g of upstreamGroups(data, options)) restore(g);
  } catch (cause) {
    throw new PersistenceError(
      `Cannot parse persistence file "${path}": neither upstream's gob nor our JSON (${(cause as Error).message}); move it aside or fix it`,
      { cause },
    );
  }
}

/**
 * Removes the temporary files of writes a crash interrupted (`<file>.<12 hex>.tmp` beside it; upstream leaves its
 * `.in_progress` ones behind, prometheus/pushgateway#398). Called at start, before any write of this process.
 */
export async function removeLeftovers(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names)
    if (name.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length)))
      await rm(join(dir, name), { force: true });
}

/** {@link loadPersistence} into a list. */
export async function readPersistence(path: string): Promise<PersistedGroup[]> {
  const groups: PersistedGroup[] = [];
  await loadPersistence(path, (g) => groups.push(g));
  return groups;
}

function readJsonPersistence(path: string, text: string): PersistedGroup[] {
  let doc: { version?: unknown; groups?: unknown };
  try {
    doc = JSON.parse(text, (_k, v: unknown) =>
      v === "Infinity"
        ? Number.POSITIVE_INFINITY
        : v === "-Infinity"
          ? Number.NEGATIVE_INFINITY
          : v === "NaN"
            ? Number.NaN
            : v,
    );
  } catch (cause) {
    throw new PersistenceError(`Cannot parse persistence file "${path}": not JSON; move it aside or fix it`, {
      cause,
    });
  }
  if (doc.version !== PERSISTENCE_VERSION || !Array.isArray(doc.groups)) {
    throw new PersistenceError(
      `Cannot parse persistence file "${path}": expected format version ${PERSISTENCE_VERSION} with a groups list`,
    );
  }
  return doc.groups as PersistedGroup[];
}
