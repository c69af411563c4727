import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/temp-dir.js";
import { StoreError } from "../errors.js";
import { storeLayout } from "./layout.js";
import { activityDir, asOptimisticSync, asPrune, asSync, type WaitOptions } from "./store-activity.js";

const RUNNING = 4242;
const GONE = 4343;
const options = (extra: Partial<WaitOptions> = {}): WaitOptions => ({
  now: () => Date.now(),
  processes: { pid: RUNNING, isRunning: (pid) => pid === RUNNING },
  timeoutMs: 2000,
  ...extra,
});

async function store() {
  const home = await tempDir("toolmgr-activity-");
  return storeLayout(home);
}

test("a second prune of one store is refused while the first runs; a marker of a process that is gone is not", async () => {
  const layout = await store();
  await asPrune(
    layout,
    async () => {
      await assert.rejects(
        asPrune(layout, async () => "second", options()),
        (e) => e instanceof StoreError && /another `toolmgr prune` is running/.test(e.message),
      );
    },
    options(),
  );
  // A prune killed mid-way left its marker; its process no longer runs.
  await writeFile(join(activityDir(layout), "prune"), `${GONE}\n`);
  assert.equal(await asPrune(layout, async () => "ran", options()), "ran");
  assert.deepEqual(await readdir(activityDir(layout)), ["prunes"], "markers are removed, the count stays");
});

test("a marked sync waits for a running prune, and a prune waits for a marked sync", async () => {
  const layout = await store();
  const order: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const prune = asPrune(
    layout,
    async () => {
      order.push("prune start");
      await held;
      order.push("prune end");
    },
    options(),
  );
  await new Promise((r) => setTimeout(r, 50));
  const waits: string[] = [];
  const sync = asSync(layout, async () => order.push("sync"), options({ onWait: (w) => waits.push(w) }));
  await new Promise((r) => setTimeout(r, 100));
  release();
  await Promise.all([prune, sync]);
  assert.deepEqual(order, ["prune start", "prune end", "sync"]);
  assert.deepEqual(waits, ["a prune of this store is running"]);

  // The other way round: a prune started beside a marked sync runs after it.
  order.length = 0;
  let done = () => {};
  const busy = new Promise<void>((resolve) => {
    done = resolve;
  });
  const syncing = asSync(
    layout,
    async () => {
      order.push("sync start");
      await busy;
      order.push("sync end");
    },
    options(),
  );
  await new Promise((r) => setTimeout(r, 50));
  const pruning = asPrune(layout, async () => order.push("prune"), options());
  await new Promise((r) => setTimeout(r, 100));
  done();
  await Promise.all([syncing, pruning]);
  assert.deepEqual(order, ["sync start", "sync end", "prune"]);
});

test("an optimistic sync runs again, marked, when a prune ran meanwhile, also when its first run failed", async () => {
  const layout = await store();
  let runs = 0;
  const result = await asOptimisticSync(
    layout,
    async () => {
      runs++;
      if (runs === 1) {
        await asPrune(layout, async () => {}, options()); // a whole prune inside the first run
        throw new Error("the install it relied on was pruned");
      }
      return "second run";
    },
    options(),
  );
  assert.equal(result, "second run");
  assert.equal(runs, 2);
  // Nothing overlapped: one run, no marker written, nothing created in the store.
  const quiet = await store();
  let once = 0;
  assert.equal(await asOptimisticSync(quiet, async () => ++once, options()), 1);
  assert.deepEqual(await readdir(quiet.home), []);
});

test("waiting ends with a StoreError after the timeout", async () => {
  const layout = await store();
  await mkdir(activityDir(layout), { recursive: true });
  await writeFile(join(activityDir(layout), "prune"), `${RUNNING}\n`);
  await assert.rejects(
    asSync(layout, async () => "never", options({ timeoutMs: 100 })),
    (e) =>
      e instanceof StoreError &&
      /^Cannot sync: a `toolmgr prune` of .* is still running after 0.1 s/.test(e.message),
  );
  // A lock waits as a sync does, and says it is the lock.
  await assert.rejects(
    asSync(layout, async () => "never", options({ timeoutMs: 100, command: "lock" })),
    (e) => e instanceof StoreError && /^Cannot lock: a `toolmgr prune` of /.test(e.message),
  );
});
