import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { startGateway, stopAll } from "./support/processes.js";

let base: string;

before(async () => {
  ({ base } = await startGateway());
});

after(stopAll);

const push = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method, body, headers });
const scrape = async () => (await fetch(`${base}/metrics`)).text();

test("POST merges by family, PUT replaces the group, DELETE removes it (202)", async () => {
  assert.equal((await push("POST", "/metrics/job/merge/instance/a", "m1 1\nm2 2\n")).status, 200);
  assert.equal((await push("POST", "/metrics/job/merge/instance/a", "m1 10\n")).status, 200);
  let text = await scrape();
  assert.match(text, /^m1\{instance="a",job="merge"\} 10$/m);
  assert.match(text, /^m2\{instance="a",job="merge"\} 2$/m);
  assert.equal((await push("PUT", "/metrics/job/merge/instance/a", "m1 5\n")).status, 200);
  text = await scrape();
  assert.match(text, /^m1\{instance="a",job="merge"\} 5$/m);
  assert.doesNotMatch(text, /^m2\{/m);
  assert.equal((await fetch(`${base}/metrics/job/merge/instance/a`, { method: "DELETE" })).status, 202);
  assert.doesNotMatch(await scrape(), /job="merge"/);
});

test("a malformed body is 400 'text format parsing error' and changes nothing", async () => {
  const r = await push("POST", "/metrics/job/bad", "blablabla\n");
  assert.equal(r.status, 400);
  assert.equal(await r.text(), 'text format parsing error in line 1: expected float as value, got ""\n');
  const nolf = await push("POST", "/metrics/job/bad", "m 1");
  assert.equal(await nolf.text(), "text format parsing error in line 1: unexpected end of input stream\n");
  assert.doesNotMatch(await scrape(), /job="bad"/);
});

test('grouping labels: @base64 values, instance="" when absent, labels override the body\'s', async () => {
  await push("PUT", "/metrics/job@base64/dGVzdC9qb2I=/path@base64/L3Zhci90bXA", 'g{job="other",x="y"} 1\n');
  const text = await scrape();
  assert.match(text, /^g\{instance="",job="test\/job",path="\/var\/tmp",x="y"\} 1$/m);
  assert.match(text, /^push_time_seconds\{instance="",job="test\/job",path="\/var\/tmp"\} \d\.\d+e\+09$/m);
  assert.match(text, /^push_failure_time_seconds\{instance="",job="test\/job",path="\/var\/tmp"\} 0$/m);
});

test("timestamps and type conflicts are rejected with upstream's message", async () => {
  const ts = await push("POST", "/metrics/job/ts", "m 1 1234\n");
  assert.equal(ts.status, 400);
  assert.equal(
    await ts.text(),
    "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps\n",
  );
  await push("PUT", "/metrics/job/typed1", "# TYPE clash gauge\nclash 1\n");
  const clash = await push("PUT", "/metrics/job/typed2", "# TYPE clash counter\nclash 1\n");
  assert.equal(clash.status, 400);
  assert.match(
    await clash.text(),
    /^pushed metrics are invalid or inconsistent with existing metrics: collected metric "clash" .* is not a GAUGE\n$/,
  );
  assert.doesNotMatch(await scrape(), /^clash\{instance="",job="typed2"/m);
});

test("exposition sorts families and series as upstream and formats floats as Go", async () => {
  await push(
    "PUT",
    "/metrics/job/fmt",
    "# HELP big A big one.\n# TYPE big gauge\nbig 1234567\nsmall 0.00001\n",
  );
  const text = await scrape();
  assert.match(
    text,
    /# HELP big A big one\.\n# TYPE big gauge\nbig\{instance="",job="fmt"\} 1\.234567e\+06\n/,
  );
  assert.match(text, /^small\{instance="",job="fmt"\} 1e-05$/m);
  const r = await fetch(`${base}/metrics`);
  assert.equal(
    r.headers.get("content-type"),
    "text/plain; version=0.0.4; charset=utf-8; escaping=underscores",
  );
  // The gateway's own metrics, named as upstream's.
  assert.match(text, /^# TYPE pushgateway_http_push_duration_seconds summary$/m);
  assert.match(text, /^pushgateway_http_push_size_bytes_count\{method="put"\} [1-9]\d*$/m);
  assert.match(text, /^pushgateway_http_requests_total\{code="200",handler="push",method="put"\} [1-9]\d*$/m);
  assert.match(text, /^process_resident_memory_bytes \d/m);
});

test("health, readiness, lifecycle without the flag, unknown paths", async () => {
  assert.equal(await (await fetch(`${base}/-/healthy`)).text(), "OK");
  assert.equal(await (await fetch(`${base}/-/ready`)).text(), "OK");
  const quit = await fetch(`${base}/-/quit`, { method: "POST" });
  assert.equal(quit.status, 403);
  assert.equal(await quit.text(), "Lifecycle API is not enabled.");
  assert.equal((await fetch(`${base}/nope`)).status, 404);
  const status = (await (await fetch(`${base}/api/v1/status`)).json()) as { status: string };
  assert.equal(status.status, "success");
});

test("unclean paths are redirected as Go's ServeMux does; trailing slashes as httprouter", async () => {
  const unclean = await fetch(`${base}/metrics/job/a//b/c`, {
    method: "PUT",
    body: "x 1\n",
    redirect: "manual",
  });
  assert.equal(unclean.status, 301);
  assert.equal(unclean.headers.get("location"), "/metrics/job/a/b/c");
  const slash = await fetch(`${base}/metrics/job/`, { method: "PUT", body: "x 1\n", redirect: "manual" });
  assert.equal(slash.status, 307);
  assert.equal((await fetch(`${base}/metrics/job`, { method: "PUT", body: "x 1\n" })).status, 404);
  const odd = await push("PUT", "/metrics/job/a/b/c/", "x 1\n");
  assert.equal(odd.status, 400);
  assert.equal(await odd.text(), 'odd number of components in label string "/b/c/"\n');
});

test("beyond upstream: body, group and series limits answer 413/429 and store nothing", async () => {
  const limited = await startGateway([
    "--push.max-body-bytes=64",
    "--push.max-groups=2",
    "--push.max-series=3",
  ]);
  try {
    const url = (p: string) => `${limited.base}${p}`;
    const big = await fetch(url("/metrics/job/big"), { method: "PUT", body: `m 1\n${"#".repeat(100)}\n` });
    assert.equal(big.status, 413);
    assert.match(await big.text(), /exceeds the limit of 64 bytes set by --push\.max-body-bytes/);
    assert.equal((await fetch(url("/metrics/job/g1"), { method: "PUT", body: "a 1\n" })).status, 200);
    assert.equal((await fetch(url("/metrics/job/g2"), { method: "PUT", body: "a 1\nb 1\n" })).status, 200);
    const groups = await fetch(url("/metrics/job/g3"), { method: "PUT", body: "a 1\n" });
    assert.equal(groups.status, 429);
    assert.match(await groups.text(), /--push\.max-groups/);
    const series = await fetch(url("/metrics/job/g1"), { method: "POST", body: "c 1\n" });
    assert.equal(series.status, 429);
    assert.match(await series.text(), /--push\.max-series/);
    const text = await (await fetch(url("/metrics"))).text();
    assert.doesNotMatch(text, /job="g3"|job="big"|^c\{/m);
  } finally {
    limited.child.kill("SIGTERM");
  }
});

test("beyond upstream: --push.max-body-bytes also bounds what a gzip body inflates to", async () => {
  const limited = await startGateway(["--push.max-body-bytes=64"]);
  try {
    const bomb = gzipSync(`m 1\n${"#".repeat(1000)}\n`);
    assert.ok(bomb.length <= 64);
    const res = await fetch(`${limited.base}/metrics/job/bomb`, {
      method: "PUT",
      body: bomb,
      headers: { "Content-Encoding": "gzip" },
    });
    assert.equal(res.status, 413);
    assert.match(await res.text(), /exceeds the limit of 64 bytes set by --push\.max-body-bytes/);
    assert.doesNotMatch(await (await fetch(`${limited.base}/metrics`)).text(), /job="bomb"/);
  } finally {
    limited.child.kill("SIGTERM");
  }
});

test("beyond upstream: --push.group-ttl drops groups after their last push", async () => {
  // Long enough that a loaded machine still sees the group right after the push; its removal is polled for.
  const ttl = await startGateway(["--push.group-ttl=3s"]);
  try {
    assert.equal(
      (await fetch(`${ttl.base}/metrics/job/short`, { method: "PUT", body: "m 1\n" })).status,
      200,
    );
    assert.match(await (await fetch(`${ttl.base}/metrics`)).text(), /job="short"/);
    let text = "";
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 200));
      text = await (await fetch(`${ttl.base}/metrics`)).text();
      if (!/job="short"/.test(text)) break;
    }
    assert.doesNotMatch(text, /job="short"/);
  } finally {
    ttl.child.kill("SIGTERM");
  }
});

test("push_time_seconds and push_failure_time_seconds follow every change of the group, scrapes in between", async () => {
  const times = async () => {
    const text = await scrape();
    const value = (name: string) =>
      Number(new RegExp(`^${name}\\{instance="",job="times"\\} (\\S+)$`, "m").exec(text)?.[1]);
    return { push: value("push_time_seconds"), failure: value("push_failure_time_seconds") };
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal((await push("PUT", "/metrics/job/times", "times_metric 1\n")).status, 200);
  const first = await times();
  assert.ok(first.push > 0);
  assert.equal(first.failure, 0);
  await pause();
  assert.equal((await push("PUT", "/metrics/job/times", "times_metric 2\n")).status, 200);
  const second = await times();
  assert.ok(second.push > first.push, `${second.push} after ${first.push}`);
  await pause();
  // Refused by the store (a timestamp), which records the failure time; a body the parser refuses would not.
  assert.equal((await push("PUT", "/metrics/job/times", "times_metric 3 1000\n")).status, 400);
  const third = await times();
  assert.equal(third.push, second.push);
  assert.ok(third.failure > second.push, `${third.failure} after ${second.push}`);
  assert.equal((await fetch(`${base}/metrics/job/times`, { method: "DELETE" })).status, 202);
  await pause();
  assert.equal((await push("PUT", "/metrics/job/times", "times_metric 4\n")).status, 200);
  const fourth = await times();
  assert.ok(fourth.push > third.failure);
  assert.equal(fourth.failure, 0, "a new group starts without a failure time");
});
