import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";

test("push() PUT submits the parsed families under the grouping key, replacing the group; 200", async () => {
  const { ctx, store } = recordingContext();
  const response = await handleRequest(
    request("PUT", "/metrics/job/j/path@base64/L3Zhci90bXA", { body: "# TYPE m gauge\nm 1\n" }),
    ctx,
  );
  assert.equal(response.status, 200);
  assert.equal(response.body, "");
  const call = store.calls[0];
  assert.equal(call?.op, "push");
  if (call?.op !== "push") return;
  assert.deepEqual(call.request.labels, { job: "j", path: "/var/tmp" });
  assert.equal(call.request.replace, true);
  assert.equal(call.request.check, true);
  assert.deepEqual(call.request.now, ctx.now());
  assert.deepEqual(
    call.request.families.map((f) => [f.name, f.type, f.metrics.length]),
    [["m", "gauge", 1]],
  );
});

test("push() POST merges (replace false); without the consistency check it answers 202", async () => {
  const { ctx, store } = recordingContext({ check: false });
  const response = await handleRequest(request("POST", "/metrics/job/j", { body: "m 1\n" }), ctx);
  assert.equal(response.status, 202);
  const call = store.calls[0];
  assert.ok(call?.op === "push" && call.request.replace === false && call.request.check === false);
});

test("push() answers the store's rejection: 400 with upstream's prefix, 429 for a limit", async () => {
  const { ctx, store } = recordingContext();
  store.rejection = { kind: "inconsistent", message: "pushed metrics must not have timestamps" };
  const refused = await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n" }), ctx);
  assert.equal(refused.status, 400);
  assert.equal(
    refused.body,
    "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps\n",
  );
  assert.equal(refused.headers["X-Content-Type-Options"], "nosniff");
  store.rejection = { kind: "limit", message: "too many groups" };
  assert.equal((await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n" }), ctx)).status, 429);
});

test("push() without the check answers 202 even when the store refused the push as inconsistent", async () => {
  const { ctx, store } = recordingContext({ check: false });
  store.rejection = { kind: "inconsistent", message: "x" };
  assert.equal((await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n" }), ctx)).status, 202);
});

test("push() refuses a bad body or grouping key with 400 and submits nothing", async () => {
  const { ctx, store } = recordingContext();
  const cases: [path: string, body: string | Buffer, headers: Record<string, string>, text: string][] = [
    [
      "/metrics/job/j",
      "blablabla\n",
      {},
      'text format parsing error in line 1: expected float as value, got ""\n',
    ],
    ["/metrics/job/j/label", "m 1\n", {}, 'odd number of components in label string "/label"\n'],
    ["/metrics/job/j", "a text body, not gzip\n", { "content-encoding": "gzip" }, "gzip: invalid header\n"],
    ["/metrics/job/j", "m 1\n", { "content-encoding": "gzip" }, "unexpected EOF\n"],
    ["/metrics/job/j", "", { "content-encoding": "gzip" }, "EOF\n"],
  ];
  for (const [path, body, headers, text] of cases) {
    const response = await handleRequest(request("PUT", path, { body, headers }), ctx);
    assert.equal(response.status, 400, path);
    assert.equal(response.body, text);
  }
  assert.deepEqual(store.calls, []);
});

test("push() reads gzip bodies (any case of the coding) and the delimited protobuf Content-Type", async () => {
  const { ctx, store } = recordingContext();
  const gz = await handleRequest(
    request("PUT", "/metrics/job/j", { body: gzipSync("m 2\n"), headers: { "content-encoding": "GZIP" } }),
    ctx,
  );
  assert.equal(gz.status, 200);
  // name "p", type GAUGE, one gauge metric of value 0 (client_model field numbers).
  const family = Buffer.from([0x0a, 0x01, 0x70, 0x18, 0x01, 0x22, 0x02, 0x12, 0x00]);
  const pb = await handleRequest(
    request("PUT", "/metrics/job/j", {
      body: Buffer.concat([Buffer.from([family.length]), family]),
      headers: {
        "content-type":
          "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
      },
    }),
    ctx,
  );
  assert.equal(pb.status, 200);
  const names = store.calls.flatMap((c) => (c.op === "push" ? c.request.families.map((f) => f.name) : []));
  assert.deepEqual(names, ["m", "p"]);
});

test("push() beyond upstream: --push.max-body-bytes answers 413, also for what a gzip body inflates to", async () => {
  const { ctx, store } = recordingContext({ maxBodyBytes: 16 });
  const big = await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n".repeat(10) }), ctx);
  assert.equal(big.status, 413);
  const bomb = await handleRequest(
    request("PUT", "/metrics/job/j", {
      body: gzipSync("m 1\n".repeat(10)),
      headers: { "content-encoding": "gzip" },
    }),
    ctx,
  );
  assert.equal(bomb.status, 413);
  assert.deepEqual(store.calls, []);
});
