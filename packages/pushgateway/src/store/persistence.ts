import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { PersistenceError } from "../errors.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import type { GroupingLabels } from "../grouping-key.js";

/** Format version of the persistence file (JSON; compatibility with Go's gob file is not a goal). */
export const PERSISTENCE_VERSION = 1;

/** One group as persisted. */
export interface PersistedGroup {
  readonly labels: GroupingLabels;
  readonly pushTime: number;
  readonly failureTime: number;
  readonly pushedAt: Record<string, number>;
  readonly families: MetricFamily[];
}

/**
 * Writes the groups atomically: a temporary file beside the target, fsync, rename; a crash leaves the old file.
 * Infinity and NaN are stored as strings so the JSON stays valid.
 */
export async function writePersistence(path: string, groups: readonly PersistedGroup[]): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const text = JSON.stringify({ version: PERSISTENCE_VERSION, groups }, (_k, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  );
  // 0600 as upstream (storage/diskmetricstore.go writes through os.CreateTemp): pushed metrics may be private.
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Reads a persistence file; an absent file is an empty store, a corrupt one is an error (never silently empty).
 *
 * @throws {PersistenceError} naming the file and what is wrong
 */
export async function readPersistence(path: string): Promise<PersistedGroup[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new PersistenceError(`Cannot read persistence file "${path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
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
