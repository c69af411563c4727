import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { parentPort } from "node:worker_threads";
import { parseRenderedFamily } from "../../exposition/rendered-family.js";
import { PackedLines } from "../../exposition/series-lines.js";
import type { RenderedGroup } from "./rendered-group.js";
import { encodeSimpleFamily } from "./simple-families.js";
import { type EncodableGroup, encodeUpstreamPersistence } from "./upstream-persistence.js";

/** A message to the persistence worker: groups of the snapshot in batches, then where to write the file. */
export type PersistenceJob =
  | { readonly kind: "groups"; readonly groups: readonly RenderedGroup[] }
  | { readonly kind: "write"; readonly path: string };

/** The worker's answer to `write`. */
export type PersistenceDone = { readonly ok: true } | { readonly ok: false; readonly message: string };

// The persistence file written off the event loop (persistence.ts): the stored lines parsed back to families,
// upstream's gob encoded and written to a temporary file beside the target, fsync, rename. A crash at any point
// leaves the previous file.
const port = parentPort;
if (port === null) throw new Error("persistence-worker.js runs as a worker thread");
const groups: EncodableGroup[] = [];
port.on("message", (job: PersistenceJob) => {
  if (job.kind === "groups") {
    for (const g of job.groups)
      groups.push({
        labels: g.labels,
        pushTime: g.pushTime,
        failureTime: g.failureTime,
        pushedAt: g.pushedAt,
        // The common family encoded from its lines directly (simple-families.ts), any other parsed back first.
        families: g.families.map((sent) => {
          // Structured cloning kept the packed lines' fields, not their class.
          const f = { ...sent, lines: PackedLines.revived(sent.lines) };
          const proto = encodeSimpleFamily(f);
          return proto === undefined ? parseRenderedFamily(f) : { name: f.name, proto };
        }),
      });
    return;
  }
  write(job.path).then(
    () => port.postMessage({ ok: true } satisfies PersistenceDone),
    (error: Error) => port.postMessage({ ok: false, message: error.message } satisfies PersistenceDone),
  );
});

async function write(path: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const data = await encodeUpstreamPersistence(groups);
  groups.length = 0;
  // 0600 as upstream (storage/diskmetricstore.go writes through os.CreateTemp): pushed metrics may be private.
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
