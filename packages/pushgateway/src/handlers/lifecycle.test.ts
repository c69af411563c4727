import assert from "node:assert/strict";
import { test } from "node:test";
import { recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";

test("quit() with --web.enable-lifecycle answers 200 and then asks for a graceful shutdown", async () => {
  const { ctx, quits } = recordingContext({ enableLifecycle: true });
  const response = await handleRequest(request("POST", "/-/quit"), ctx);
  assert.equal(response.status, 200);
  assert.equal(response.body, "Requesting termination... Goodbye!");
  assert.deepEqual(quits, []);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(quits, [1]);
});

test("quit() without the flag is 403 without a trailing newline; GET is upstream's own 405 text", async () => {
  const { ctx, quits } = recordingContext();
  const refused = await handleRequest(request("PUT", "/-/quit"), ctx);
  assert.equal(refused.status, 403);
  assert.equal(refused.body, "Lifecycle API is not enabled.");
  const get = await handleRequest(request("GET", "/-/quit"), ctx);
  assert.equal(get.body, "Only POST or PUT requests allowed.");
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(quits, []);
});

test("healthy() answers OK as text", async () => {
  const { ctx } = recordingContext();
  const response = await handleRequest(request("GET", "/-/ready"), ctx);
  assert.equal(response.body, "OK");
  assert.equal(response.headers["Content-Type"], "text/plain; charset=utf-8");
});
