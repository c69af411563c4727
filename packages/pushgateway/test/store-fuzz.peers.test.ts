// Store equivalence under seeded fuzzing: the push sequences of push-fuzz.peers.test.ts (support/push-fuzz-cases.ts)
// go to four of our gateways at once: the memory store, the persisted store (`--persistence.file`) and two replicas
// on one real redis-server (each request to either, and now and then a write through `/aggregate`, drawn from a
// second seeded source). Every answer must be the memory store's; after each sequence the text and protobuf scrapes
// and /api/v1/metrics of all four must be the memory store's (push times masked), and the two replicas must show the
// same, push times included, within a deadline. Every few cases the persisted gateway is restarted from its file and
// must show exactly what it showed before, and the second replica is restarted from Redis and must show what the
// first shows. Replay or widen a run with FUZZ_SEED and FUZZ_CASES; FUZZ_FLAGS adds flags to all four (e.g.
// `--push.disable-consistency-check`, `--push.enable-utf8-names --push.max-series=12`).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import protobuf from "protobufjs";
import { eventually } from "./support/eventually.js";
import { metricFamilyType } from "./support/metric-family-type.js";
import { normalizeApi, normalizeExposition, type Side, send, showStep } from "./support/peer-compare.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { sequence } from "./support/push-fuzz-cases.js";
import { startRedis } from "./support/redis-server.js";
import { DELIMITED, OWN } from "./support/scrape-fixtures.js";
import { xorshift32 } from "./support/xorshift.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 200);
/** Every how many cases the persisted gateway is restarted from its file and the second replica from Redis. */
const RESTART_EVERY = 8;
/** The share of writes sent to `/aggregate/metrics/...` instead. */
const AGGREGATE = 0.15;
/** How long the second replica may take to show what the first shows. */
const CONVERGE_MS = 5000;

const FLAGS = ["--web.enable-admin-api", ...(process.env.FUZZ_FLAGS ?? "").split(" ").filter(Boolean)];
let dir = "";
let file = "";
let memory: Side;
let disk: Side;
let replicas: [Side, Side];
let redisUrl = "";

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "pgw-store-fuzz-"));
  file = join(dir, "pushgateway.data");
  redisUrl = (await startRedis()).url;
  [memory, disk, ...replicas] = await Promise.all([
    startGateway(FLAGS),
    startGateway([`--persistence.file=${file}`, ...FLAGS]),
    startReplica(),
    startReplica(),
  ]);
});
after(async () => {
  await stopAll();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

/** What a gateway holds: the text and protobuf scrapes and /api/v1/metrics as fetched. */
interface Held {
  scrape: { status: number; body: string };
  proto: { status: number; body: Buffer };
  api: { status: number; body: string };
}

async function held(side: Side): Promise<Held> {
  const scrape = await send(side, { method: "GET", path: "/metrics" });
  const res = await fetch(`${side.base}/metrics`, { headers: { Accept: DELIMITED } });
  const proto = { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  const api = await send(side, { method: "GET", path: "/api/v1/metrics" });
  return { scrape, proto, api };
}

/**
 * A protobuf scrape as JSON, one family a line: in the gateway's own families only pushed series (they carry `job`),
 * push times masked unless `exact`.
 */
function protoView(body: Buffer, exact: boolean): string {
  const reader = protobuf.Reader.create(body);
  const out: string[] = [];
  while (reader.pos < reader.len) {
    const f = metricFamilyType.toObject(metricFamilyType.decodeDelimited(reader), {
      longs: String,
      enums: String,
    }) as { name: string; metric?: { label?: { name: string }[]; gauge?: { value: number } }[] };
    let metrics = f.metric ?? [];
    if (OWN.test(f.name)) metrics = metrics.filter((m) => m.label?.some((l) => l.name === "job"));
    if (metrics.length === 0) continue;
    if (!exact && /^push(_failure)?_time_seconds$/.test(f.name))
      for (const m of metrics) if (m.gauge && m.gauge.value !== 0) m.gauge.value = -1;
    // NaN and the infinities, which JSON has not, as their names.
    out.push(
      JSON.stringify({ ...f, metric: metrics }, (_k, v: unknown) =>
        typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
      ),
    );
  }
  return out.join("\n");
}

/** The push-time lines of a scrape, sorted: normalizeExposition masks their values, which the exact checks compare. */
const times = (scrape: string) =>
  scrape
    .split("\n")
    .filter((l) => /^push(_failure)?_time_seconds\{/.test(l))
    .sort()
    .join("\n");

/** The API's groups sorted (they follow map order), nothing masked. */
const apiExact = (body: string) => {
  const doc = JSON.parse(body) as { status: string; data: unknown[] };
  return `${doc.status} ${doc.data
    .map((g) => JSON.stringify(g))
    .sort()
    .join("\n")}`;
};

/** Differences of `other` from `base` (push times masked, or compared exactly), described; empty when equal. */
function differences(base: Held, other: Held, exact: boolean): string[] {
  const out: string[] = [];
  if (base.scrape.status !== other.scrape.status)
    out.push(`scrape status ${base.scrape.status} vs ${other.scrape.status}: ${other.scrape.body}`);
  else {
    const [b, o] = [normalizeExposition(base.scrape.body), normalizeExposition(other.scrape.body)];
    if (b !== o) out.push(`scrape differs:\n--- expected\n${b}\n--- got\n${o}`);
    else if (exact && times(base.scrape.body) !== times(other.scrape.body))
      out.push(
        `push times differ:\n--- expected\n${times(base.scrape.body)}\n--- got\n${times(other.scrape.body)}`,
      );
  }
  if (base.proto.status !== other.proto.status)
    out.push(`protobuf scrape status ${base.proto.status} vs ${other.proto.status}`);
  else if (base.proto.status === 200) {
    const [b, o] = [protoView(base.proto.body, exact), protoView(other.proto.body, exact)];
    if (b !== o) out.push(`protobuf scrape differs:\n--- expected\n${b}\n--- got\n${o}`);
  }
  if (base.api.status !== 200 || other.api.status !== 200)
    out.push(`/api/v1/metrics ${base.api.status} ${base.api.body} vs ${other.api.status} ${other.api.body}`);
  else {
    const norm = exact ? apiExact : normalizeApi;
    const [b, o] = [norm(base.api.body), norm(other.api.body)];
    if (b !== o) out.push(`/api/v1/metrics differs:\n--- expected\n${b}\n--- got\n${o}`);
  }
  return out;
}

/** A replica on the file's redis-server, ready. */
async function startReplica(): Promise<Side> {
  const started = await startGateway([`--storage.redis-url=${redisUrl}`, ...FLAGS]);
  const ready = await eventually(async () => (await fetch(`${started.base}/-/ready`)).status === 200, 10_000);
  assert.ok(ready, `replica ${started.base} did not get ready`);
  return started;
}

/** Stops the persisted gateway (it writes its file on SIGTERM) and starts it again on the same file. */
async function restartDisk(): Promise<void> {
  await stop(disk.child);
  disk = await startGateway([`--persistence.file=${file}`, ...FLAGS]);
}

// A deadline for the whole run, so that a gateway that stops answering fails the file instead of hanging it.
test(`${CASES} seeded push sequences: memory, persisted (and restarted) and replicated stores agree (seed ${SEED})`, {
  timeout: 100 * CASES + 60_000,
}, async () => {
  const rand = xorshift32(SEED);
  // Which replica gets each request: a source of its own, so the sequences are push-fuzz's for the same seed.
  const route = xorshift32(SEED ^ 0x5eed);
  const replica = () => replicas[route() < 0.5 ? 0 : 1];
  const failures: string[] = [];
  let restarts = 0;
  for (let n = 0; n < CASES && failures.length < 10; n++) {
    // Now and then a write goes through `/aggregate` (beyond upstream: adds into the group), drawn from `route` too.
    const steps = sequence(rand).map((step) =>
      step.method !== "GET" && route() < AGGREGATE ? { ...step, path: `/aggregate${step.path}` } : step,
    );
    const where = (what: string) => `case ${n}: ${what}\n  ${steps.map(showStep).join("\n  ")}`;
    for (const side of [memory, disk, replica()])
      assert.equal((await send(side, { method: "PUT", path: "/api/v1/admin/wipe" })).status, 202);
    let same = true;
    for (const [i, step] of steps.entries()) {
      const r = replica();
      const [m, d, x] = [await send(memory, step), await send(disk, step), await send(r, step)];
      for (const [what, a] of [
        ["persisted", d],
        [`replica ${r.base}`, x],
      ] as const) {
        const diffs = (["status", "contentType", "location", "allow", "body"] as const).filter(
          (k) => a[k] !== m[k],
        );
        if (diffs.length > 0) {
          failures.push(
            where(
              `step ${i}: ${what} differs in ${diffs.join(", ")}: memory ${m.status} ${JSON.stringify(m.body)}, ${what} ${a.status} ${JSON.stringify(a.body)}`,
            ),
          );
          same = false;
        }
      }
      if (!same) break;
    }
    if (!same) continue;
    const base = await held(memory);
    const onDisk = await held(disk);
    for (const d of differences(base, onDisk, false)) failures.push(where(`persisted: ${d}`));
    const first = await held(replicas[0]);
    for (const d of differences(base, first, false)) failures.push(where(`replica: ${d}`));
    let second = await held(replicas[1]);
    const converged = await eventually(async () => {
      second = await held(replicas[1]);
      return differences(first, second, true).length === 0;
    }, CONVERGE_MS);
    if (!converged)
      for (const d of differences(first, second, true))
        failures.push(where(`replicas within ${CONVERGE_MS} ms: ${d}`));
    if (n % RESTART_EVERY === RESTART_EVERY - 1) {
      // The persisted gateway from its file; the second replica from Redis (the log, or a snapshot and the log).
      await Promise.all([restartDisk(), stop(replicas[1].child)]);
      replicas[1] = await startReplica();
      restarts++;
      for (const d of differences(onDisk, await held(disk), true))
        failures.push(where(`after a restart from the persistence file: ${d}`));
      let restarted = await held(replicas[1]);
      const caughtUp = await eventually(async () => {
        restarted = await held(replicas[1]);
        return differences(first, restarted, true).length === 0;
      }, CONVERGE_MS);
      if (!caughtUp)
        for (const d of differences(first, restarted, true))
          failures.push(where(`a replica restarted from Redis, within ${CONVERGE_MS} ms: ${d}`));
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(restarts >= Math.floor(CASES / RESTART_EVERY), `${restarts} restarts`);
});
