import assert from "node:assert/strict";
import { test } from "node:test";
import { recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";

test("handleRequest() answers each path and method as upstream's router does", async () => {
  const cases: [method: string, path: string, status: number, allow?: string][] = [
    ["GET", "/nope", 404],
    ["HEAD", "/metrics", 405, "GET, OPTIONS"],
    ["POST", "/metrics", 405, "GET, OPTIONS"],
    ["GET", "/metrics/job/j", 405, "DELETE, OPTIONS, POST, PUT"],
    ["OPTIONS", "/metrics/job/j", 200, "DELETE, OPTIONS, POST, PUT"],
    // httprouter answers OPTIONS on every path it has routes for (HandleOPTIONS), not only the push paths.
    ["OPTIONS", "/metrics", 200, "GET, OPTIONS"],
    ["OPTIONS", "/-/healthy", 200, "GET, OPTIONS"],
    ["OPTIONS", "/static/x", 200, "GET, OPTIONS"],
    ["OPTIONS", "/-/quit", 200, "GET, OPTIONS, POST, PUT"],
    ["DELETE", "/-/quit", 405, "GET, OPTIONS, POST, PUT"],
    ["HEAD", "/-/quit", 405, "GET, OPTIONS, POST, PUT"],
    ["GET", "/metrics/job/", 404],
    ["GET", "/metrics/job", 404],
    ["GET", "/-/healthy", 200],
    ["PUT", "/-/ready", 405, "GET, OPTIONS"],
    ["GET", "/-/quit", 405],
    ["PUT", "/-/quit", 403],
    ["PUT", "/api/v1/admin/wipe", 404],
    ["OPTIONS", "/api/v1/anything", 200],
    ["POST", "/api/v1/status", 405, "GET, OPTIONS"],
    ["GET", "/", 200],
    ["GET", "/status", 200],
  ];
  for (const [method, path, status, allow] of cases) {
    const { ctx } = recordingContext();
    const response = await handleRequest(request(method, path), ctx);
    assert.equal(response.status, status, `${method} ${path}`);
    assert.equal(response.headers.Allow, allow, `${method} ${path}`);
  }
});

test("handleRequest() serves the scrape on --web.telemetry-path, and pushes stay under /metrics/job", async () => {
  const { ctx, store } = recordingContext({ telemetryPath: "/m" });
  assert.equal((await handleRequest(request("GET", "/m"), ctx)).status, 200);
  assert.equal((await handleRequest(request("GET", "/metrics"), ctx)).status, 404);
  assert.equal((await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n" }), ctx)).status, 200);
  assert.equal(store.calls.length, 1);
});

test("handleRequest() registers the wipe route only with the admin API", async () => {
  const { ctx, store } = recordingContext({ enableAdminApi: true });
  assert.equal((await handleRequest(request("PUT", "/api/v1/admin/wipe"), ctx)).status, 202);
  const post = await handleRequest(request("POST", "/api/v1/admin/wipe"), ctx);
  assert.equal(post.status, 405);
  assert.equal(post.headers.Allow, "OPTIONS, PUT");
  assert.deepEqual(store.calls, [{ op: "wipe" }]);
});

test("handleRequest() counts requests under upstream's handler names", async () => {
  const { ctx, counted } = recordingContext();
  await handleRequest(request("PUT", "/metrics/job/j", { body: "m 1\n" }), ctx);
  await handleRequest(request("POST", "/metrics/job/j", { body: "bad" }), ctx);
  await handleRequest(request("DELETE", "/metrics/job/j"), ctx);
  await handleRequest(request("OPTIONS", "/metrics/job/j"), ctx);
  await handleRequest(request("GET", "/-/healthy"), ctx);
  await handleRequest(request("GET", "/api/v1/status"), ctx);
  await handleRequest(request("GET", "/metrics"), ctx);
  assert.deepEqual(counted, [
    ["push", "PUT", 200],
    ["push", "POST", 400],
    ["delete", "DELETE", 202],
    ["healthy", "GET", 200],
    ["api/v1/status", "GET", 200],
  ]);
});
