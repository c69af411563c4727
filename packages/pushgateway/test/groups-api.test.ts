import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);

let base = "";
let plainBase = "";

const put = (path: string, body = "m 1\n") => fetch(`${base}${path}`, { method: "PUT", body });
const jobs = async (b = base) => {
  const r = await fetch(`${b}/api/v1/groups`);
  const { data } = (await r.json()) as { data: { labels: Record<string, string> }[] };
  return data.map((g) => g.labels).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
};
const q = (params: [string, string][]) => new URLSearchParams(params).toString();

before(async () => {
  base = (await startGateway(["--web.enable-admin-api"])).base;
  plainBase = (await startGateway()).base;
});

test("GET /api/v1/groups lists groups by match[] (union of selectors), shaped as /api/v1/metrics without metrics", async () => {
  for (const path of [
    "/metrics/job/batch-1",
    "/metrics/job/batch-2/instance/a",
    "/metrics/job/batch-3/env/test",
    "/metrics/job/web/instance/w1",
  ])
    assert.equal((await put(path)).status, 200);
  const list = async (...selectors: string[]) => {
    const r = await fetch(`${base}/api/v1/groups?${q(selectors.map((s) => ["match[]", s]))}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    const body = (await r.json()) as { status: string; data: Record<string, unknown>[] };
    assert.equal(body.status, "success");
    return body.data;
  };
  const all = await list();
  assert.equal(all.length, 4);
  const [first] = await list('{job="web"}');
  assert.deepEqual(Object.keys(first ?? {}).sort(), [
    "labels",
    "last_push_successful",
    "push_failure_time_seconds",
    "push_time_seconds",
  ]);
  assert.deepEqual(first?.labels, { instance: "w1", job: "web" });
  const labels = (groups: Record<string, unknown>[]) =>
    groups.map((g) => (g.labels as { job: string }).job).sort();
  assert.deepEqual(labels(await list('{job=~"batch-.*", env!="test"}')), ["batch-1", "batch-2"]);
  assert.deepEqual(labels(await list('{job=~"batch-[12]"}', '{instance="w1"}')), [
    "batch-1",
    "batch-2",
    "web",
  ]);
  assert.deepEqual(labels(await list('{instance!~".+"}')), ["batch-1", "batch-3"]);
});

test("a selector that does not parse is 400 bad_data with the parser's message", async () => {
  const r = await fetch(`${base}/api/v1/groups?${q([["match[]", '{job="a" env="b"}']])}`);
  assert.equal(r.status, 400);
  assert.deepEqual(await r.json(), {
    status: "error",
    errorType: "bad_data",
    error: 'parse error at char 10: expected "," or "}" after a label matcher, got "e"',
  });
  const unknown = await fetch(`${base}/api/v1/groups?match=x`);
  assert.equal(unknown.status, 400);
  assert.match(((await unknown.json()) as { error: string }).error, /^unknown parameter "match"/);
});

test("DELETE /api/v1/admin/groups deletes what match[] selects; dry_run deletes nothing; everything needs all=true", async () => {
  for (const path of ["/metrics/job/gc-1", "/metrics/job/gc-2/instance/x", "/metrics/job/keep"])
    assert.equal((await put(path)).status, 200);
  const del = (params: [string, string][]) =>
    fetch(`${base}/api/v1/admin/groups?${q(params)}`, { method: "DELETE" });
  const before = await jobs();

  const refusals: [[string, string][], string][] = [
    [
      [],
      'no match[] selector: name the groups to delete, e.g. match[]={job="batch"}, or pass all=true to delete every group',
    ],
    [
      [["match[]", "{}"]],
      "match[]={} selects every group (no matcher refuses an empty label set); pass all=true as well to delete every group",
    ],
    [
      [["match[]", '{job=~".*"}']],
      'match[]={job=~".*"} selects every group (no matcher refuses an empty label set); pass all=true as well to delete every group',
    ],
    [[["match[]", "{job=}"]], 'parse error at char 6: expected a quoted value after job=, got "}"'],
    [
      [
        ["match[]", '{job="gc-1"}'],
        ["dry_run", "yes"],
      ],
      "dry_run=yes is neither true nor false",
    ],
    [
      [
        ["match[]", '{job="gc-1"}'],
        ["force", "true"],
      ],
      'unknown parameter "force"; this endpoint takes match[], dry_run, all',
    ],
  ];
  for (const [params, error] of refusals) {
    const r = await del(params);
    assert.equal(r.status, 400, error);
    assert.deepEqual(await r.json(), { status: "error", errorType: "bad_data", error });
  }
  assert.deepEqual(await jobs(), before, "a refused delete changes nothing");

  const dry = await del([
    ["match[]", '{job=~"gc-.*"}'],
    ["dry_run", "true"],
  ]);
  assert.equal(dry.status, 202, "a dry run answers as the delete would");
  const dryBody = (await dry.json()) as { data: { deleted: number; groups: Record<string, string>[] } };
  assert.equal(dryBody.data.deleted, 2);
  assert.deepEqual(await jobs(), before, "a dry run changes nothing");

  const r = await del([["match[]", '{job=~"gc-.*"}']]);
  assert.equal(r.status, 202);
  const body = (await r.json()) as {
    status: string;
    data: { deleted: number; groups: Record<string, string>[] };
  };
  assert.equal(body.status, "success");
  assert.equal(body.data.deleted, 2);
  const sorted = (gs: Record<string, string>[]) => gs.map((g) => JSON.stringify(g)).sort();
  assert.deepEqual(sorted(body.data.groups), sorted([{ job: "gc-1" }, { instance: "x", job: "gc-2" }]));
  assert.deepEqual(sorted(dryBody.data.groups), sorted(body.data.groups));
  const left = await jobs();
  assert.ok(!left.some((g) => g.job?.startsWith("gc-")));
  assert.ok(left.some((g) => g.job === "keep"));
  const scrape = await (await fetch(`${base}/metrics`)).text();
  assert.doesNotMatch(scrape, /job="gc-/);

  const wipe = await del([
    ["match[]", "{}"],
    ["all", "true"],
  ]);
  assert.equal(wipe.status, 202);
  assert.equal(((await wipe.json()) as { data: { deleted: number } }).data.deleted, left.length);
  assert.deepEqual(await jobs(), []);
});

test("without --web.enable-admin-api the delete route does not exist, as upstream's wipe", async () => {
  assert.equal((await fetch(`${plainBase}/metrics/job/x`, { method: "PUT", body: "m 1\n" })).status, 200);
  const r = await fetch(`${plainBase}/api/v1/admin/groups?match[]=${encodeURIComponent('{job="x"}')}`, {
    method: "DELETE",
  });
  assert.equal(r.status, 404);
  assert.equal(await r.text(), "404 page not found\n");
  assert.deepEqual(await jobs(plainBase), [{ job: "x" }]);
});

test("regexes run in linear time, as RE2 does: a backtracking bomb answers at once, a backreference is refused", async () => {
  const job = "a".repeat(40);
  assert.equal((await put(`/metrics/job/${job}`)).status, 200);
  // Backtracking, (a+)+b against 40 a's takes about 2^40 steps; with the linear engine it is immediate.
  const r = await fetch(`${base}/api/v1/groups?${q([["match[]", '{job=~"(a+)+b"}']])}`, {
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(r.status, 200);
  assert.deepEqual(((await r.json()) as { data: unknown[] }).data, []);
  const page = await fetch(`${base}/?filter=${encodeURIComponent('job=~"(a+)+b"')}`, {
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(page.status, 200);
  const backref = await fetch(`${base}/api/v1/groups?${q([["match[]", '{job=~"(a)\\\\1"}']])}`);
  assert.equal(backref.status, 400);
  assert.match(
    ((await backref.json()) as { error: string }).error,
    /^parse error at char 7: invalid regular expression in job=~"\(a\)\\\\1": .*Cannot be executed in linear time$/,
  );
});
