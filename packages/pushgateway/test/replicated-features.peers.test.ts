// Beyond upstream, in Redis mode (two replicas on Debian's redis-server): aggregating pushes taken by either replica
// add up exactly, a refused one changes nothing anywhere, a delete by matcher on one is seen by the other, and
// OTLP delta exports to both add up.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "./support/eventually.js";
import { startGateway, stopAll } from "./support/processes.js";
import { startRedis } from "./support/redis-server.js";

let replicas: string[] = [];

before(async () => {
  const redis = await startRedis();
  for (let i = 0; i < 2; i++) {
    const { base } = await startGateway([`--storage.redis-url=${redis.url}`, "--web.enable-admin-api"]);
    assert.ok(
      await eventually(async () => (await fetch(`${base}/-/ready`)).status === 200, 10_000),
      `replica ${base} did not get ready`,
    );
    replicas.push(base);
  }
});

after(async () => {
  replicas = [];
  await stopAll();
});

const a = () => replicas[0] ?? "";
const b = () => replicas[1] ?? "";

/** The lines of a text scrape naming `job`, `push_*` gauges left out, sorted. */
const lines = async (base: string, job: string) =>
  (await (await fetch(`${base}/metrics`)).text())
    .split("\n")
    .filter((l) => l.includes(`job="${job}"`) && !l.startsWith("push_"))
    .sort();

test("20 concurrent aggregating pushers spread over two replicas lose no update", async () => {
  const pusher = async (n: number) => {
    const base = n % 2 === 0 ? a() : b();
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${base}/aggregate/metrics/job/shared`, {
        method: "POST",
        body: `# TYPE hits_total counter\nhits_total 1\n# TYPE lat histogram\nlat_bucket{le="1"} 1\nlat_bucket{le="+Inf"} 2\nlat_sum 3\nlat_count 2\n`,
      });
      assert.equal(r.status, 200, await r.text());
    }
  };
  await Promise.all(Array.from({ length: 20 }, (_, n) => pusher(n)));
  const expected = [
    'hits_total{instance="",job="shared"} 200',
    'lat_bucket{instance="",job="shared",le="+Inf"} 400',
    'lat_bucket{instance="",job="shared",le="1"} 200',
    'lat_count{instance="",job="shared"} 400',
    'lat_sum{instance="",job="shared"} 600',
  ];
  assert.deepEqual(await lines(a(), "shared"), expected);
  assert.deepEqual(await lines(b(), "shared"), expected);

  const refused = await fetch(`${b()}/aggregate/metrics/job/shared`, {
    method: "POST",
    body: '# TYPE lat histogram\nlat_bucket{le="2"} 1\nlat_bucket{le="+Inf"} 1\nlat_sum 1\nlat_count 1\n',
  });
  assert.equal(refused.status, 400);
  assert.equal(
    await refused.text(),
    'cannot add lat{instance="",job="shared"}: bucket layout differs (group holds le=1,+Inf, push has le=2,+Inf)\n',
  );
  assert.deepEqual(await lines(a(), "shared"), expected);
  assert.deepEqual(await lines(b(), "shared"), expected);
});

test("a delete by matcher on one replica is seen by the other once answered", async () => {
  for (const job of ["gc-1", "gc-2", "kept"]) {
    assert.equal((await fetch(`${a()}/metrics/job/${job}`, { method: "PUT", body: "m 1\n" })).status, 200);
  }
  const match = `match[]=${encodeURIComponent('{job=~"gc-.*"}')}`;
  const dry = await fetch(`${b()}/api/v1/admin/groups?${match}&dry_run=true`, { method: "DELETE" });
  assert.equal(dry.status, 202, "a dry run answers as the delete would");
  assert.equal(((await dry.json()) as { data: { deleted: number } }).data.deleted, 2);
  const r = await fetch(`${b()}/api/v1/admin/groups?${match}`, { method: "DELETE" });
  assert.equal(r.status, 202);
  const body = (await r.json()) as { data: { deleted: number; groups: { job: string }[] } };
  assert.equal(body.data.deleted, 2);
  assert.deepEqual(body.data.groups.map((g) => g.job).sort(), ["gc-1", "gc-2"]);
  for (const base of [a(), b()]) {
    const listed = (await (await fetch(`${base}/api/v1/groups?${match}`)).json()) as { data: unknown[] };
    assert.deepEqual(listed.data, [], base);
    assert.deepEqual(await lines(base, "kept"), ['m{instance="",job="kept"} 1']);
  }
});

test("OTLP delta exports taken by both replicas add up", async () => {
  const exportTo = (base: string, value: number) =>
    fetch(`${base}/v1/metrics`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        resourceMetrics: [
          {
            resource: { attributes: [{ key: "service.name", value: { stringValue: "otel-delta" } }] },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: "jobs.done",
                    sum: {
                      aggregationTemporality: 1,
                      isMonotonic: true,
                      dataPoints: [{ asInt: String(value) }],
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
  for (const [base, v] of [
    [a(), 3],
    [b(), 4],
    [a(), 5],
  ] as const) {
    const r = await exportTo(base, v);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), "{}");
  }
  for (const base of [a(), b()])
    assert.deepEqual(await lines(base, "otel-delta"), ['jobs_done_total{instance="",job="otel-delta"} 12']);
});
