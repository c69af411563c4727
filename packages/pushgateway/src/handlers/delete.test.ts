import assert from "node:assert/strict";
import { test } from "node:test";
import { recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";

test("deleteGroup() deletes exactly the grouping key and answers 202 with an empty body", async () => {
  const { ctx, store } = recordingContext();
  const response = await handleRequest(request("DELETE", "/metrics/job@base64/dGVzdC9qb2I=/a/b"), ctx);
  assert.equal(response.status, 202);
  assert.equal(response.body, "");
  assert.deepEqual(store.calls, [{ op: "delete", labels: { a: "b", job: "test/job" } }]);
});

test("deleteGroup() answers 400 for a bad grouping key and deletes nothing", async () => {
  const { ctx, store } = recordingContext();
  const response = await handleRequest(request("DELETE", "/metrics/job/j/__x/y"), ctx);
  assert.equal(response.status, 400);
  assert.equal(response.body, 'improper label name "__x"\n');
  assert.deepEqual(store.calls, []);
});
