import assert from "node:assert/strict";
import { test } from "node:test";
import { createRequestLimiter } from "./request-limiter.js";

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

test("createRequestLimiter() keeps at most `limit` calls running", async () => {
  const limiter = createRequestLimiter(2);
  let running = 0;
  let most = 0;
  const gates = Array.from({ length: 5 }, gate);
  const all = gates.map((g) =>
    limiter.run(async () => {
      running++;
      most = Math.max(most, running);
      await g.opened;
      running--;
    }),
  );
  for (const g of gates) {
    await new Promise((r) => setImmediate(r));
    g.open();
  }
  await Promise.all(all);
  assert.equal(most, 2);
});

test("createRequestLimiter() lets requests issued in the same turn go before background ones", async () => {
  const limiter = createRequestLimiter(2);
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  const job = (name: string, background: boolean) => {
    const g = gate();
    gates.set(name, g);
    return limiter.run(
      async () => {
        started.push(name);
        await g.opened;
      },
      { background },
    );
  };
  // Issued background first, as lock issues a privacy lookup and then the chain's first request, per tool.
  const jobs = [job("privacy1", true), job("chain1", false), job("privacy2", true), job("chain2", false)];
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ["chain1", "chain2"], "the chains take the free slots");
  gates.get("chain1")?.open();
  await new Promise((r) => setImmediate(r));
  const next = job("chain1-release", false);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    started,
    ["chain1", "chain2", "privacy1"],
    "a freed slot goes to the waiting background job",
  );
  gates.get("chain2")?.open();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    started.slice(3),
    ["chain1-release"],
    "a waiting normal job goes before the background one",
  );
  for (const g of gates.values()) g.open();
  await Promise.all([...jobs, next]);
  assert.deepEqual(started.slice(4), ["privacy2"]);
});
