import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { decodeUpstreamPersistence, encodeUpstreamPersistence } from "./upstream-persistence.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/persistence/", import.meta.url));

test("1.5.1's file: groups with their labels, push and failure times, families and per-family push times", async () => {
  const groups = await decodeUpstreamPersistence(await readFile(`${FIXTURES}upstream-1.5.1-rich.gob`));
  const byJob = new Map(groups.map((g) => [g.labels.job, g]));
  const batch = byJob.get("batch");
  const other = byJob.get("other");
  assert.deepEqual(batch?.labels, { instance: "host1", job: "batch" });
  assert.deepEqual(other?.labels, { job: "other", path: "/tmp" });
  assert.equal(batch?.pushTime, 1795747893.768033);
  assert.equal(batch?.failureTime, 0);
  assert.equal(other?.pushTime, 1795747893.8116593);
  assert.equal(other?.failureTime, 1795747893.8787315);
  assert.deepEqual(batch?.families.map((f) => f.name).sort(), [
    "jobs_done",
    "last_run",
    "lat",
    "plain",
    "size",
  ]);
  assert.equal(batch?.pushedAt.jobs_done, Date.parse("2026-11-27T02:51:33.768Z"));
  const size = batch?.families.find((f) => f.name === "size");
  // Pushed without +Inf: the buckets as pushed.
  assert.deepEqual(size?.metrics[0]?.buckets, [
    [0.5, 1],
    [10, 3],
  ]);
  const jobs = batch?.families.find((f) => f.name === "jobs_done");
  assert.equal(jobs?.help, "Jobs finished.");
  assert.deepEqual(
    jobs?.metrics.map((m) => [m.labels, m.value]),
    [
      [
        [
          ["instance", "host1"],
          ["job", "batch"],
          ["queue", "a b"],
        ],
        42,
      ],
      [
        [
          ["instance", "host1"],
          ["job", "batch"],
          ["queue", "ü"],
        ],
        1e21,
      ],
    ],
  );
});

test("what ours writes reads back the same, push times to the millisecond", async () => {
  const groups = await decodeUpstreamPersistence(await readFile(`${FIXTURES}upstream-1.5.1-rich.gob`));
  const again = await decodeUpstreamPersistence(await encodeUpstreamPersistence(groups));
  const sort = (gs: typeof groups) =>
    [...gs].sort((a, b) => (a.labels.job ?? "").localeCompare(b.labels.job ?? ""));
  const normal = (gs: typeof groups) =>
    sort(gs).map((g) => ({ ...g, families: [...g.families].sort((a, b) => a.name.localeCompare(b.name)) }));
  assert.deepEqual(normal(again), normal(groups));
});

test("a grouping label named __proto__ reads back as that label", async () => {
  const labels = Object.fromEntries([
    ["__proto__", "x"],
    ["job", "j"],
  ]) as Record<string, string>;
  const group = { labels, pushTime: 1, failureTime: 2, families: [], pushedAt: {} };
  const [again] = await decodeUpstreamPersistence(await encodeUpstreamPersistence([group]));
  assert.deepEqual(Object.entries(again?.labels ?? {}).sort(), [
    ["__proto__", "x"],
    ["job", "j"],
  ]);
});
