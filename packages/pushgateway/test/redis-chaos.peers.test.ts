// Beyond upstream: the failures a Redis-backed replica set must survive, one after another, under load. Twelve clients
// keep changing their own groups (PUT, POST, DELETE) through random replicas of three on one real redis-server while a
// replica is killed with SIGKILL, Redis hangs (SIGSTOP) and Redis restarts empty (the clients then change other groups,
// so that what was answered before the restart is checked after it). Afterwards the replicas must agree, and every
// group must hold its last change answered 200/202, or a change after it that was refused as unconfirmed (503, a
// dropped connection: "may not have been stored").
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, test } from "node:test";
import { eventually } from "./support/eventually.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { startRedis } from "./support/redis-server.js";

after(stopAll);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A group's pushed values as a scrape shows them (`a`, `b`), or null when the group is absent. */
type GroupState = { a?: number; b?: number } | null;

/** The states without repeats (a run of unconfirmed changes would otherwise double the list each time). */
function distinct(states: GroupState[]): GroupState[] {
  return [...new Map(states.map((s) => [JSON.stringify(s), s])).values()];
}

/** Every group of the scrape, by its `g` label. */
async function groupsOf(base: string): Promise<Map<string, GroupState>> {
  const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const groups = new Map<string, GroupState>();
  for (const line of text.split("\n")) {
    const m = /^chaos_(a|b)\{g="([^"]+)",instance="",job="chaos"(?:,k="1")?\} (\S+)$/.exec(line);
    if (m === null) continue;
    const [, name, group, value] = m as unknown as [string, "a" | "b", string, string];
    groups.set(group, { ...(groups.get(group) ?? {}), [name]: Number(value) });
  }
  return groups;
}

test("kill -9 of a replica, a hung Redis and Redis back empty, under load: replicas agree, no answered change lost", async () => {
  const redis = await startRedis();
  const start = async () => {
    const started = await startGateway([`--storage.redis-url=${redis.url}`]);
    const ready = await eventually(async () => (await fetch(`${started.base}/-/ready`)).ok, 10_000);
    assert.ok(ready, `replica ${started.base} did not get ready`);
    return started;
  };
  const replicas: { child: ChildProcess; base: string }[] = [await start(), await start(), await start()];
  let current = redis;

  /**
   * Per group: the states it may be in. An answered change leaves one (a POST's per state it may have built on); a
   * change that may not have been stored adds its outcome to those the group was in.
   */
  const possible = new Map<string, GroupState[]>();
  const outcomes = { answered: 0, refused: 0 };
  let stopping = false;
  // Before Redis restarts empty the clients move on to groups of their own: the earlier groups, changed no more,
  // must come back exactly as last answered.
  let phase = 1;
  const client = async (w: number) => {
    for (let n = 1; !stopping; n++) {
      const group = `p${phase}w${w}g${n % 3}`;
      const before = possible.get(group) ?? [null];
      const value = w * 100_000 + n;
      const r = Math.random();
      // POST replaces only `b`, keeping the rest of the group.
      const [method, body, change]: [string, string | undefined, (s: GroupState) => GroupState] =
        r < 0.6
          ? ["PUT", `chaos_a{k="1"} ${value}\nchaos_b ${value}\n`, () => ({ a: value, b: value })]
          : r < 0.85
            ? ["POST", `chaos_b ${value}\n`, (s) => ({ ...(s ?? {}), b: value })]
            : ["DELETE", undefined, () => null];
      const after = distinct(before.map(change));
      const target = replicas[Math.floor(Math.random() * replicas.length)]?.base ?? "";
      try {
        const res = await fetch(`${target}/metrics/job/chaos/g/${group}`, {
          method,
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(15_000),
        });
        await res.arrayBuffer();
        if (res.status === 200 || res.status === 202) {
          outcomes.answered++;
          possible.set(group, after);
          continue;
        }
        assert.equal(res.status, 503, `${method} answered ${res.status}`);
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        // The replica died, or Redis hung past the deadline: the change may or may not be stored.
      }
      outcomes.refused++;
      possible.set(group, distinct([...before, ...after]));
      // Refusals come fast while Redis is away: do not spin.
      await sleep(20);
    }
  };
  const clients = Array.from({ length: 12 }, (_, w) => client(w));
  try {
    await sleep(1500);
    // A replica killed mid-push, replaced by a new one.
    const victim = replicas.splice(1, 1)[0];
    assert.ok(victim);
    victim.child.kill("SIGKILL");
    await stop(victim.child);
    replicas.push(await start());
    await sleep(1500);
    // Redis hangs for 3 s: pushes wait, then answer (or 503 when Redis answers too late).
    current.child.kill("SIGSTOP");
    await sleep(3000);
    current.child.kill("SIGCONT");
    await sleep(1500);
    phase = 2;
    await sleep(500);
    // Redis restarts empty: the replicas write the copy furthest along back.
    current.child.kill("SIGKILL");
    await stop(current.child);
    await sleep(500);
    current = await startRedis(redis.port);
    await sleep(3000);
  } finally {
    stopping = true;
    await Promise.all(clients);
    current.child.kill("SIGCONT");
  }
  assert.ok(outcomes.answered > 200, `only ${outcomes.answered} changes answered`);
  const early = [...possible.keys()].filter((g) => g.startsWith("p1")).length;
  assert.ok(early >= 30, `only ${early} groups changed before the restart`);

  for (const r of replicas) {
    const ready = await eventually(async () => (await fetch(`${r.base}/-/ready`)).ok, 10_000);
    assert.ok(ready, `${r.base} is not ready again`);
  }
  // Once every replica has caught up, all three show the same groups.
  let views: Map<string, GroupState>[] = [];
  const agreed = await eventually(async () => {
    views = await Promise.all(replicas.map((r) => groupsOf(r.base)));
    const texts = views.map((v) => JSON.stringify([...v].sort()));
    return texts.every((t) => t === texts[0]);
  }, 10_000);
  assert.ok(agreed, `replicas disagree:\n${views.map((v) => JSON.stringify([...v].sort())).join("\n")}`);
  const [view] = views;
  assert.ok(view);
  const lost: string[] = [];
  for (const [group, states] of possible) {
    const got = JSON.stringify(view.get(group) ?? null);
    if (!states.some((s) => JSON.stringify(s) === got))
      lost.push(`${group}: holds ${got}, answered ${states.map((s) => JSON.stringify(s)).join(" or ")}`);
  }
  assert.deepEqual(
    lost,
    [],
    `answered changes lost (${outcomes.answered} answered, ${outcomes.refused} not)`,
  );
});
