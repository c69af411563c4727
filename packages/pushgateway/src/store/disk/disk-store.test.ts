import assert from "node:assert/strict";
import { test } from "node:test";
import { parseText } from "../../exposition/parse-text.js";
import { MemoryStore } from "../memory-store.js";
import type { Group } from "../metric-store.js";
import { DiskStore } from "./disk-store.js";

function store(options: { file: string; intervalMs: number; fail?: boolean }) {
  const writes: Group[][] = [];
  const logged: string[] = [];
  let failing = options.fail ?? false;
  const disk = new DiskStore(new MemoryStore(), {
    file: options.file,
    intervalMs: options.intervalMs,
    write: async (_file, groups) => {
      if (failing) throw new Error("disk full");
      writes.push([...groups]);
    },
    log: (_level, msg) => logged.push(msg),
  });
  return { disk, writes, logged, recover: () => (failing = false) };
}

const push = (disk: DiskStore, job: string) =>
  disk.push({ labels: { job }, families: parseText("m 1\n"), replace: true, now: new Date(), check: true });

test("written once per interval after changes, and on close (upstream's DiskMetricStore.loop)", async () => {
  const { disk, writes } = store({ file: "/f", intervalMs: 50 });
  push(disk, "a");
  push(disk, "b");
  assert.equal(writes.length, 0);
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0]?.map((g) => g.labels.job).sort(), ["a", "b"]);
  disk.delete({ job: "a" });
  await disk.close();
  assert.equal(writes.length, 2);
  assert.deepEqual(
    writes[1]?.map((g) => g.labels.job),
    ["b"],
  );
  // Nothing changed since: close writes nothing more.
  await disk.close();
  assert.equal(writes.length, 2);
});

test("no file, no writes; a failed write is logged and retried at close", async () => {
  const none = store({ file: "", intervalMs: 10 });
  push(none.disk, "a");
  await none.disk.close();
  assert.equal(none.writes.length, 0);
  const failing = store({ file: "/f", intervalMs: 10, fail: true });
  push(failing.disk, "a");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(failing.logged, ["Error persisting metrics: disk full"]);
  failing.recover();
  await failing.disk.close();
  assert.equal(failing.writes.length, 1);
});
