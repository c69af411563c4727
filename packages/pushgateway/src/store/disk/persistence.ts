import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { PersistenceError } from "../../errors.js";
import type { PersistedGroup } from "../metric-store.js";
import { decodeUpstreamPersistence, encodeUpstreamPersistence } from "./upstream-persistence.js";

/**
 * Format version of the JSON persistence file earlier versions of ours wrote. It is still read; files are now written
 * in upstream's gob format (upstream-persistence.ts), so a team can move between upstream and ours both ways.
 */
const PERSISTENCE_VERSION = 1;

/**
 * Writes the groups atomically in upstream's format (a gob, storage/diskmetricstore.go `persist`): a temporary file
 * beside the target, fsync, rename; a crash leaves the old file.
 */
export async function writePersistence(path: string, groups: readonly PersistedGroup[]): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const data = await encodeUpstreamPersistence(groups);
  // 0600 as upstream (storage/diskmetricstore.go writes through os.CreateTemp): pushed metrics may be private.
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(data);
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
 * Reads a persistence file: upstream's gob (1.5 to 1.11, and what ours writes) or the JSON of earlier versions of
 * ours. An absent file is an empty store; a file neither reads is an error, so it is never overwritten.
 *
 * @throws {PersistenceError} naming the file and what is wrong
 */
export async function readPersistence(path: string): Promise<PersistedGroup[]> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new PersistenceError(`Cannot read persistence file "${path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (data.length === 0) return [];
  if (data[0] === 0x7b /* { */) return readJsonPersistence(path, data.toString("utf8"));
  try {
    return await decodeUpstreamPersistence(data);
  } catch (cause) {
    throw new PersistenceError(
      `Cannot parse persistence file "${path}": neither upstream's gob nor our JSON (${(cause as Error).message}); move it aside or fix it`,
      { cause },
    );
  }
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
