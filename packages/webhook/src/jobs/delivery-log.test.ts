import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { DeliveryLog } from "./delivery-log.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function logDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "webhook-deliveries-"));
  dirs.push(dir);
  return join(dir, "deliveries");
}

test("deduplicate-by: a delivery id is answered with its first job for 24 hours, then runs again", async () => {
  const dir = await logDir();
  let now = Date.parse("2026-11-28T10:00:00Z");
  const log = new DeliveryLog(dir, { now: () => new Date(now) });
  assert.equal(
    log.claim("deploy", "d-1", () => "job-1"),
    undefined,
  );
  now += DAY_MS - 1;
  assert.equal(
    log.claim("deploy", "d-1", () => "job-x"),
    "job-1",
  );
  // The same id for another hook is another delivery.
  assert.equal(
    log.claim("other", "d-1", () => "job-2"),
    undefined,
  );
  now += 1;
  assert.equal(
    log.claim("deploy", "d-1", () => "job-3"),
    undefined,
    "24 hours after it was first seen, it runs",
  );
  assert.equal(
    log.claim("deploy", "d-1", () => "job-x"),
    "job-3",
  );
});

test("deduplicate-by: seen deliveries survive a restart; ones past 24 hours are dropped from the disk", async () => {
  const dir = await logDir();
  let now = Date.parse("2026-11-28T10:00:00Z");
  const clock = { now: () => new Date(now) };
  const first = new DeliveryLog(dir, clock);
  first.claim("deploy", "old", () => "job-old");
  now += DAY_MS / 2;
  first.claim("deploy", "recent", () => "job-recent");
  assert.equal((await readdir(dir)).length, 2);
  now += DAY_MS / 2 + 1;
  const restarted = new DeliveryLog(dir, clock);
  assert.equal((await readdir(dir)).length, 1, "the expired delivery's file is removed at start");
  assert.equal(
    restarted.claim("deploy", "recent", () => "job-x"),
    "job-recent",
  );
  assert.equal(
    restarted.claim("deploy", "old", () => "job-new"),
    undefined,
  );
});

test("deduplicate-by: a refused run's claim is forgotten, so the retry runs", async () => {
  const dir = await logDir();
  const log = new DeliveryLog(dir, { now: () => new Date() });
  log.claim("deploy", "d-1", () => "job-1");
  log.forget("deploy", "d-1");
  assert.deepEqual(await readdir(dir), []);
  assert.equal(
    log.claim("deploy", "d-1", () => "job-2"),
    undefined,
  );
});
