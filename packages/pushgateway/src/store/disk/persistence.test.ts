import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PersistenceError } from "../../errors.js";
import { MemoryStore } from "../memory-store.js";
import type { PersistedGroup } from "../metric-store.js";
import { readPersistence, writePersistence } from "./persistence.js";

const GROUP: PersistedGroup = {
  labels: { job: "j" },
  pushTime: 1_700_000_000.25,
  failureTime: 0,
  pushedAt: { m: 1_700_000_000_250 },
  families: [
    {
      name: "m",
      help: undefined,
      type: "gauge",
      metrics: [
        {
          labels: [
            ["instance", ""],
            ["job", "j"],
          ],
          value: 2,
        },
      ],
    },
  ],
};

/** The group as the store holds it (what the writer takes). */
function stored(group: PersistedGroup) {
  const memory = new MemoryStore();
  memory.restore([group]);
  return memory.groups();
}

async function inTemp(run: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pg-persistence-"));
  try {
    await run(join(dir, "data"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("written in upstream's gob (not JSON), 0600, read back the same", () =>
  inTemp(async (file) => {
    await writePersistence(file, stored(GROUP));
    assert.notEqual((await readFile(file))[0], 0x7b);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await readPersistence(file), [GROUP]);
  }));

test("the JSON file of earlier versions of ours is still read", () =>
  inTemp(async (file) => {
    await writeFile(file, JSON.stringify({ version: 1, groups: [{ ...GROUP, families: [] }] }));
    assert.deepEqual(await readPersistence(file), [{ ...GROUP, families: [] }]);
  }));

test("an absent or empty file is an empty store; a file neither format reads is an error", () =>
  inTemp(async (file) => {
    assert.deepEqual(await readPersistence(file), []);
    await writeFile(file, "");
    assert.deepEqual(await readPersistence(file), []);
    await writeFile(file, Buffer.from([0x03, 0x04, 0x05, 0x06]));
    await assert.rejects(readPersistence(file), PersistenceError);
    await writeFile(file, '{"version":2,"groups":[]}');
    await assert.rejects(readPersistence(file), /expected format version 1/);
  }));
