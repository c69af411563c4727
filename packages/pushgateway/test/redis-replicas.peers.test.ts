// Beyond upstream: three of our replicas on one real redis-server (Debian's redis-server) behave as one gateway:
// a push to one is on every replica's /metrics once answered, conflicting pushes across replicas end consistent,
// a replica killed mid-push loses nothing it answered 200 for, and a Redis outage gives 503s, a failing /-/ready and
// stale-but-served scrapes, then recovers by itself.
import assert from "node:assert/strict";
import { type ChildProcess, execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { eventually } from "./support/eventually.js";
import { assertRoundTrip, nativePushBody, scrapeProtobuf } from "./support/native-push.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { promtoolProblems } from "./support/prometheus.js";
import { startRedis } from "./support/redis-server.js";
import { DELIMITED } from "./support/scrape-fixtures.js";

let redis: { child: ChildProcess; port: number; url: string };
let replicas: string[] = [];
let processes: ChildProcess[] = [];

/** A replica on database `db` of the file's Redis (another database is another gateway), ready. */
async function startReplica(
  options: { db?: number; flags?: string[] } = {},
): Promise<{ child: ChildProcess; base: string }> {
  const url = redis.url.replace(/\/0$/, `/${options.db ?? 0}`);
  const started = await startGateway([
    `--storage.redis-url=${url}`,
    ...(options.flags ?? ["--web.enable-admin-api"]),
  ]);
  const ready = await eventually(async () => (await fetch(`${started.base}/-/ready`)).status === 200, 10_000);
  assert.ok(ready, `replica ${started.base} did not get ready`);
  return started;
}

/** The pushed series of a scrape (the gateway's own families left out: they differ per process). */
async function pushed(base: string): Promise<string[]> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l !== "" && !/^(# (HELP|TYPE) )?(process_|nodejs_|pushgateway_|go_)/.test(l))
    .sort();
}

async function send(
  base: string,
  path: string,
  init: { method: string; body?: string | Buffer; headers?: Record<string, string> },
) {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, body: await res.text() };
}

before(async () => {
  redis = await startRedis();
  replicas = [];
  processes = [];
  for (let i = 0; i < 3; i++) {
    const started = await startReplica();
    replicas.push(started.base);
    processes.push(started.child);
  }
});

after(stopAll);

const a = () => replicas[0] ?? "";
const b = () => replicas[1] ?? "";
const c = () => replicas[2] ?? "";

test("a push, POST merge, DELETE, a refused push and the admin wipe on one replica are seen by the others", async () => {
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  const put = await send(a(), "/metrics/job/batch/instance/i1", {
    method: "PUT",
    body: "# TYPE rows counter\nrows 10\n# TYPE size gauge\nsize 3\n",
  });
  assert.equal(put.status, 200, put.body);
  // Answered, so already on the other replicas' scrapes (no waiting).
  const onA = await pushed(a());
  assert.ok(onA.includes('rows{instance="i1",job="batch"} 10'), onA.join("\n"));
  assert.deepEqual(await pushed(b()), onA);
  assert.deepEqual(
    await pushed(c()),
    onA,
    "push_time_seconds is stored once, so every replica shows the same",
  );

  const post = await send(b(), "/metrics/job/batch/instance/i1", { method: "POST", body: "size 4\n" });
  assert.equal(post.status, 200, post.body);
  const merged = await pushed(c());
  assert.ok(merged.includes('size{instance="i1",job="batch"} 4'));
  assert.ok(
    merged.includes('rows{instance="i1",job="batch"} 10'),
    "POST keeps the families it does not name",
  );

  const bad = await send(c(), "/metrics/job/other", { method: "PUT", body: "# TYPE rows gauge\nrows 1\n" });
  assert.equal(bad.status, 400);
  assert.match(
    bad.body,
    /^pushed metrics are invalid or inconsistent with existing metrics: .*is not a COUNTER/,
  );
  const failures = await Promise.all(
    [a(), b(), c()].map(async (r) =>
      (await pushed(r)).find((l) => l.startsWith('push_failure_time_seconds{instance="",job="other"}')),
    ),
  );
  assert.ok(failures[0] !== undefined && !failures[0].endsWith(" 0"), String(failures[0]));
  assert.deepEqual(
    new Set(failures).size,
    1,
    `every replica shows the same failure time: ${failures.join(", ")}`,
  );

  assert.equal((await send(a(), "/metrics/job/batch/instance/i1", { method: "DELETE" })).status, 202);
  assert.ok(!(await pushed(b())).some((l) => l.includes('job="batch"')));
  assert.equal((await send(b(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  assert.deepEqual(await pushed(c()), []);
  const api = (await (await fetch(`${a()}/api/v1/metrics`)).json()) as { data: unknown[] };
  assert.deepEqual(api.data, []);
});

test("20 concurrent conflicting pushes across replicas end in one state a single gateway could reach", async () => {
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      send(replicas[i % 3] ?? "", `/metrics/job/race${i}`, {
        method: "PUT",
        body: `# TYPE contested ${i % 2 === 0 ? "counter" : "gauge"}\ncontested ${i}\n`,
      }).then((r) => ({ ...r, i })),
    ),
  );
  const accepted = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 400);
  assert.equal(accepted.length + refused.length, 20, JSON.stringify(results));
  // The first push in the log's order fixes the type; every accepted push has it, every refused one the other.
  const winnerType = accepted[0] === undefined ? undefined : accepted[0].i % 2;
  assert.ok(
    accepted.every((r) => r.i % 2 === winnerType),
    JSON.stringify(results),
  );
  assert.ok(refused.every((r) => r.i % 2 !== winnerType));
  const views = await Promise.all([a(), b(), c()].map(pushed));
  assert.deepEqual(views[1], views[0]);
  assert.deepEqual(views[2], views[0]);
  const series = (views[0] ?? []).filter((l) => l.startsWith("contested{"));
  assert.equal(series.length, accepted.length);
  for (const r of refused) {
    assert.ok(!series.some((l) => l.includes(`job="race${r.i}"`)));
    const failure = (views[0] ?? []).find((l) =>
      l.startsWith(`push_failure_time_seconds{instance="",job="race${r.i}"}`),
    );
    assert.ok(failure !== undefined && !failure.endsWith(" 0"), `race${r.i}: ${failure}`);
  }
});

test("replicas apply a push as the replica that took it logged it: protobuf extras, and refusals as one gateway", async () => {
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  // Native buckets and exemplars have no place in the rendered lines: they travel in the entry beside them.
  const protobuf = (base: string) =>
    send(base, "/metrics/job/native", {
      method: "PUT",
      headers: { "Content-Type": DELIMITED },
      body: nativePushBody(),
    });
  const native = await protobuf(a());
  assert.equal(native.status, 200, native.body);
  for (const r of [b(), c()]) assertRoundTrip(await scrapeProtobuf(r));

  // The same refusals on one process and on the replicas: each push's first error in push order (a type clash with
  // another group, judged by each replica, or a series twice in one family, judged once by the replica taking it).
  const single = (await startGateway()).base;
  const sequence: [string, string][] = [
    ["/metrics/job/x", "# TYPE shared counter\nshared 1\n"],
    ["/metrics/job/y", '# TYPE shared gauge\nshared 2\n# TYPE ok gauge\nok{a="1"} 1\nok{a="1"} 2\n'],
    ["/metrics/job/y", '# TYPE ok gauge\nok{a="1"} 1\nok{a="1"} 2\n# TYPE shared gauge\nshared 2\n'],
    ["/metrics/job/z", '# TYPE fine gauge\nfine{a="1"} 1\n'],
  ];
  const answers = [];
  for (const [path, body] of sequence) {
    const expected = await send(single, path, { method: "PUT", body });
    answers.push(expected);
    assert.deepEqual(await send(c(), path, { method: "PUT", body }), expected, `${path}: ${body}`);
  }
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 400, 400, 200],
  );
  assert.match(answers[1]?.body ?? "", /collected metric "shared" .* is not a COUNTER/);
  assert.match(answers[2]?.body ?? "", /collected metric "ok" .* was collected before with the same name/);
  // A protobuf histogram without a +Inf bucket (client_golang sends none) refused: quoted as pushed, not as rendered.
  assert.equal((await send(a(), "/metrics/job/native", { method: "DELETE" })).status, 202);
  for (const r of [single, c()]) {
    const clash = await send(r, "/metrics/job/gauge", {
      method: "PUT",
      body: "# TYPE rpc_seconds gauge\nrpc_seconds 1\n",
    });
    assert.equal(clash.status, 200, clash.body);
  }
  const refusedHistogram = await protobuf(single);
  assert.equal(refusedHistogram.status, 400);
  assert.match(refusedHistogram.body, /histogram:\{sample_count:8 .* is not a GAUGE/);
  assert.doesNotMatch(refusedHistogram.body, /upper_bound:inf/);
  assert.deepEqual(await protobuf(c()), refusedHistogram);

  const failures = await Promise.all(
    [a(), b(), c()].map(async (r) =>
      (await pushed(r)).find((l) => l.startsWith('push_failure_time_seconds{instance="",job="y"}')),
    ),
  );
  assert.ok(failures[0] !== undefined && !failures[0].endsWith(" 0"), String(failures[0]));
  assert.equal(new Set(failures).size, 1, failures.join(", "));
  assert.deepEqual(await pushed(a()), await pushed(c()));
});

test("a replica killed with SIGKILL mid-push loses nothing it answered 200 for", async () => {
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  const victim = await startReplica();
  const answered: number[] = [];
  let next = 0;
  let killed = false;
  const body = `# TYPE work gauge\n${Array.from({ length: 200 }, (_, k) => `work{k="${k}"} ${k}`).join("\n")}\n`;
  const worker = async () => {
    while (!killed && next < 2000) {
      const n = next++;
      try {
        const r = await fetch(`${victim.base}/metrics/job/kill/n/${n}`, { method: "PUT", body });
        if (r.status === 200) answered.push(n);
        await r.arrayBuffer();
      } catch {
        // The connection died with the replica: not answered.
      }
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  await eventually(async () => answered.length >= 20, 30_000);
  victim.child.kill("SIGKILL");
  killed = true;
  await Promise.all(workers);
  await stop(victim.child);
  assert.ok(answered.length >= 20, `only ${answered.length} pushes answered before the kill`);
  const onB = new Set(
    (await pushed(b()))
      .filter((l) => l.startsWith('work{instance="",job="kill",k="0"'))
      .map((l) => Number(/n="(\d+)"/.exec(l)?.[1])),
  );
  const lost = answered.filter((n) => !onB.has(n));
  assert.deepEqual(lost, [], `answered 200 but missing on another replica: ${lost.join(", ")}`);
  assert.deepEqual(await pushed(c()), await pushed(b()));
});

test("--push.group-ttl uses Redis expiry: one expire op per deadline, renewed by successful pushes only", async () => {
  // Two more replicas on another database of the same Redis: another gateway, with a TTL.
  const client = new Redis({ host: "127.0.0.1", port: redis.port, db: 1, lazyConnect: true });
  try {
    await client.connect();
    const ttl = [];
    for (let i = 0; i < 2; i++) ttl.push(await startReplica({ db: 1, flags: ["--push.group-ttl=2s"] }));
    const [x = "", y = ""] = ttl.map((g) => g.base);
    const alive = (job: string) => `{pushgateway}:alive:job\xff${job}`;
    const series = async (r: string) => (await pushed(r)).filter((l) => !l.startsWith("#"));
    const jobs = async (r: string) => new Set((await series(r)).map((l) => /job="([^"]*)"/.exec(l)?.[1]));

    assert.equal(
      (await send(x, "/metrics/job/short", { method: "PUT", body: "short_lived 1\n" })).status,
      200,
    );
    assert.ok((await pushed(y)).includes('short_lived{instance="",job="short"} 1'));
    assert.ok(!(await pushed(a())).some((l) => l.startsWith("short_lived")), "database 1 is another gateway");
    // The deadline is a Redis key expiry.
    const pttl = await client.pttl(alive("short"));
    assert.ok(pttl > 0 && pttl <= 2000, `PTTL of the alive key: ${pttl}`);

    // "kept" is pushed again and again (successes renew it); "stale" gets only refused pushes after its first one
    // (a clash with kept's gauge), which must not keep its old data alive.
    const keptBody = "# TYPE clash gauge\nclash 1\nkept_m 1\n";
    assert.equal((await send(y, "/metrics/job/kept", { method: "PUT", body: keptBody })).status, 200);
    assert.equal((await send(x, "/metrics/job/stale", { method: "PUT", body: "stale_m 1\n" })).status, 200);
    let renewing = true;
    const renew = (async () => {
      while (renewing) {
        assert.equal((await send(y, "/metrics/job/kept", { method: "PUT", body: keptBody })).status, 200);
        const refused = await send(x, "/metrics/job/stale", {
          method: "POST",
          body: "# TYPE clash counter\nclash 2\n",
        });
        assert.equal(refused.status, 400, refused.body);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    // Gone: short altogether, stale's data (a refused push after the expiry creates the group anew, holding only its
    // failure time, so "no stale group" would be true only until the next refusal, 0.3 s later).
    const expired = await eventually(async () => {
      const seen = await Promise.all([x, y].map(series));
      return seen.every((v) => !v.some((l) => l.includes('job="short"') || l.startsWith("stale_m")));
    }, 10_000);
    renewing = false;
    await renew;
    const left = await Promise.all([x, y].map(async (r) => [...(await jobs(r))].join(",")));
    assert.ok(expired, `short and stale did not expire on both replicas; jobs left: ${left.join(" | ")}`);
    for (const r of [x, y])
      assert.ok((await jobs(r)).has("kept"), `kept expired on ${r} though pushed every 0.3 s`);

    // Both replicas got each keyspace event; the log has one expire op per group.
    const ops = (await client.xrange("{pushgateway}:log", "-", "+")).map(([, fields]) =>
      JSON.parse(fields[1] ?? "{}"),
    );
    const expiries = (job: string) => ops.filter((o) => o.kind === "expire" && o.labels.job === job).length;
    assert.equal(expiries("short"), 1);
    assert.equal(expiries("stale"), 1);

    // Redis's deadline rules, not a replica's clock: a longer PX keeps the group past its TTL...
    assert.equal(await client.pexpire(alive("kept"), 60_000), 1);
    await new Promise((r) => setTimeout(r, 3500));
    for (const r of [x, y]) assert.ok((await jobs(r)).has("kept"), "kept went before its alive key expired");
    // ...and the key's expiry ends it, found by the poll even with keyspace events turned off on the server.
    await client.config("SET", "notify-keyspace-events", "");
    assert.equal(await client.pexpire(alive("kept"), 1), 1);
    const gone = await eventually(
      async () => (await Promise.all([x, y].map(series))).every((v) => v.length === 0),
      10_000,
    );
    assert.ok(gone, "kept did not expire on both replicas after its alive key expired");
    await Promise.all(ttl.map((g) => stop(g.child)));
  } finally {
    client.disconnect();
  }
});

test("--push.group-ttl: refused pushes to a group past its deadline do not keep it, even where Redis expires lazily", async () => {
  // Without its expiry cycle Redis removes an expired key only when a command touches it. A refused push used to
  // touch the group's alive key (to give a new group a deadline), bringing it back each time: the group never went.
  const client = new Redis({ host: "127.0.0.1", port: redis.port, db: 4, lazyConnect: true });
  try {
    await client.connect();
    await client.debug("SET-ACTIVE-EXPIRE", "0");
    const ttl = [];
    for (let i = 0; i < 2; i++) ttl.push(await startReplica({ db: 4, flags: ["--push.group-ttl=1s"] }));
    const [x = "", y = ""] = ttl.map((g) => g.base);
    const keptBody = "# TYPE clash gauge\nclash 1\n";
    assert.equal((await send(y, "/metrics/job/kept", { method: "PUT", body: keptBody })).status, 200);
    assert.equal((await send(x, "/metrics/job/stale", { method: "PUT", body: "stale_m 1\n" })).status, 200);
    // Refused pushes as fast as they are answered: each would touch the alive key within milliseconds of its
    // deadline, long before the replicas' poll (each second) does.
    let pushing = true;
    const refusals = (async () => {
      let last = 0;
      while (pushing) {
        const refused = await send(x, "/metrics/job/stale", {
          method: "POST",
          body: "# TYPE clash counter\nclash 2\n",
        });
        // Refused whether it is judged before the expiry is applied or after (the group is then new).
        assert.equal(refused.status, 400, refused.body);
        if (Date.now() - last > 300) {
          assert.equal((await send(y, "/metrics/job/kept", { method: "PUT", body: keptBody })).status, 200);
          last = Date.now();
        }
      }
    })();
    // A group a refused push creates anew holds only its failure time: stale's data is what must go.
    const gone = await eventually(
      async () =>
        (await Promise.all([x, y].map(pushed))).every((v) => !v.some((l) => l.startsWith("stale_m"))),
      6000,
    );
    pushing = false;
    await refusals;
    assert.ok(gone, "stale's data outlived its deadline while refused pushes kept coming");
    await Promise.all(ttl.map((g) => stop(g.child)));
  } finally {
    await client.debug("SET-ACTIVE-EXPIRE", "1").catch(() => undefined);
    client.disconnect();
  }
});

test("the Python prometheus_client pushes to one replica, adds through another, deletes through the third; promtool accepts every scrape", async () => {
  // Debian's python3-prometheus-client, as a batch job uses it: each call goes to a different replica.
  const python = (script: string, base: string) =>
    promisify(execFile)("/usr/bin/python3", ["-c", script, base.replace("http://", "")], { timeout: 60_000 });
  const imports =
    "import sys\nfrom prometheus_client import CollectorRegistry, Gauge, Counter, push_to_gateway, pushadd_to_gateway, delete_from_gateway\n";
  await python(
    `${imports}r = CollectorRegistry()
Gauge('py_job_last_success_unixtime', 'Last time the job succeeded', registry=r).set(42)
Counter('py_job_records', 'Records processed', registry=r).inc(7)
push_to_gateway(sys.argv[1], job='pyjob', grouping_key={'instance': 'host-1'}, registry=r)`,
    a(),
  );
  await python(
    `${imports}r = CollectorRegistry()
Gauge('py_job_extra', 'Added by pushadd', registry=r).set(3)
pushadd_to_gateway(sys.argv[1], job='pyjob', grouping_key={'instance': 'host-1'}, registry=r)`,
    b(),
  );
  let first: string[] | undefined;
  for (const base of replicas) {
    const series = (await pushed(base)).filter((l) => l.includes('job="pyjob"') && !l.startsWith("push_"));
    // The client adds py_job_records_created (the counter's creation time); every replica shows the same value.
    first ??= series;
    assert.deepEqual(series, first, base);
    assert.deepEqual(
      series.filter((l) => !l.startsWith("py_job_records_created")),
      [
        'py_job_extra{instance="host-1",job="pyjob"} 3',
        'py_job_last_success_unixtime{instance="host-1",job="pyjob"} 42',
        'py_job_records_total{instance="host-1",job="pyjob"} 7',
      ],
      base,
    );
    // promtool (Debian's prometheus) checks the whole exposition, the replica's own families included.
    const text = await (await fetch(`${base}/metrics`)).text();
    assert.deepEqual(await promtoolProblems(text), [], base);
  }
  await python(
    `${imports}delete_from_gateway(sys.argv[1], job='pyjob', grouping_key={'instance': 'host-1'})`,
    c(),
  );
  for (const base of replicas)
    assert.deepEqual(
      (await pushed(base)).filter((l) => l.includes("pyjob")),
      [],
      base,
    );
});

test("--push.enable-utf8-names holds for replicas: a dotted label name is accepted and seen on the other", async () => {
  const pair = [];
  for (let i = 0; i < 2; i++) pair.push(await startReplica({ db: 2, flags: ["--push.enable-utf8-names"] }));
  const [p = "", q = ""] = pair.map((g) => g.base);
  const body = '# TYPE "some.metric" gauge\n{"some.metric","dotted.label.name"="v"} 42\n';
  const put = await send(p, "/metrics/job/utf8", { method: "PUT", body });
  assert.equal(put.status, 200, put.body);
  assert.ok((await pushed(q)).includes('some_metric{dotted_label_name="v",instance="",job="utf8"} 42'));
  await Promise.all(pair.map((g) => stop(g.child)));
});

test("Redis stopped: 503 pushes, /-/ready fails within 5 s, stale scrapes; Redis back empty: recovers", async () => {
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  const kept = await send(a(), "/metrics/job/kept", { method: "PUT", body: "kept_value 7\n" });
  assert.equal(kept.status, 200);
  const before = await pushed(b());
  await stop(redis.child);

  const refused = await send(b(), "/metrics/job/during", { method: "PUT", body: "during 1\n" });
  assert.equal(refused.status, 503, refused.body);
  assert.match(refused.body, /not stored: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable/);
  assert.equal((await send(c(), "/metrics/job/kept", { method: "DELETE" })).status, 503);
  for (const r of [a(), b(), c()]) {
    const ready = await fetch(`${r}/-/ready`, { signal: AbortSignal.timeout(5000) });
    assert.equal(ready.status, 503);
    assert.match(await ready.text(), /Redis at .* is unreachable/);
  }
  // Scrapes serve the last known state and say how stale it is.
  assert.deepEqual(await pushed(b()), before);
  const stale = await eventually(async () => {
    const text = await (await fetch(`${c()}/metrics`)).text();
    const value = Number(/^pushgateway_redis_cache_staleness_seconds (\S+)$/m.exec(text)?.[1]);
    return value > 0 && /^pushgateway_redis_up 0$/m.test(text);
  }, 5000);
  assert.ok(stale, "the staleness gauge rises while Redis is away");

  redis = await startRedis(redis.port);
  // Redis came back empty; a replica writes its copy back, and pushes work again within 10 s.
  const recovered = await eventually(
    async () => (await send(c(), "/metrics/job/after", { method: "PUT", body: "after 2\n" })).status === 200,
    10_000,
  );
  assert.ok(recovered, "pushes did not work again within 10 s of Redis returning");
  for (const r of [a(), b(), c()]) {
    const view = await pushed(r);
    assert.ok(view.includes('after{instance="",job="after"} 2'), `${r}: ${view.join("\n")}`);
    assert.ok(view.includes('kept_value{instance="",job="kept"} 7'), `${r} kept what was answered before`);
    assert.equal((await fetch(`${r}/-/ready`)).status, 200);
  }
});

test("Redis back empty: the store is re-created from the copy furthest along the log, not the first one offered", async () => {
  const [pa, pb, pc] = processes;
  assert.ok(pa && pb && pc);
  assert.equal((await send(a(), "/api/v1/admin/wipe", { method: "PUT" })).status, 202);
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    // c stops following, so its copy lacks the next push; a answers it and b reads it.
    pc.kill("SIGSTOP");
    const ahead = await send(a(), "/metrics/job/ahead", { method: "PUT", body: "ahead 1\n" });
    assert.equal(ahead.status, 200, ahead.body);
    assert.ok((await pushed(b())).includes('ahead{instance="",job="ahead"} 1'));
    await stop(redis.child);
    // a and b sleep through Redis's return; c, behind, wakes first and re-creates the store from its copy.
    pa.kill("SIGSTOP");
    pb.kill("SIGSTOP");
    pc.kill("SIGCONT");
    redis = await startRedis(redis.port);
    await client.connect();
    const seeded = await eventually(async () => (await client.get("{pushgateway}:epoch")) !== null, 5000);
    assert.ok(seeded, "c did not re-create the store");
    // a and b wake while the new store settles: a copy further along replaces c's before anything is appended.
    pa.kill("SIGCONT");
    pb.kill("SIGCONT");
    const after = await send(c(), "/metrics/job/after", { method: "PUT", body: "after 3\n" });
    assert.equal(after.status, 200, after.body);
    for (const r of [a(), b(), c()]) {
      const view = await pushed(r);
      assert.ok(
        view.includes('ahead{instance="",job="ahead"} 1'),
        `${r} lost an answered push: ${view.join("\n")}`,
      );
      assert.ok(view.includes('after{instance="",job="after"} 3'), `${r}: ${view.join("\n")}`);
    }
  } finally {
    for (const p of [pa, pb, pc]) p.kill("SIGCONT");
    client.disconnect();
  }
});
