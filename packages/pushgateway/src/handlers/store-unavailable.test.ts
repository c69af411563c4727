// The handlers over a shared store (--storage.redis-url) that cannot take changes or is behind: 503 for writes,
// /-/ready failing with the reason, reads caught up first. The Redis side is redis-replicas.peers.test.ts's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RecordingStore, recordingContext, request } from "../../test/support/recording-context.js";
import { StoreUnavailableError } from "../errors.js";
import type { GroupingLabels } from "../grouping-key.js";
import type { PushRejection } from "../store/metric-store.js";
import { handleRequest } from "./routes.js";

class DownStore extends RecordingStore {
  refreshed = 0;
  override push(): PushRejection | undefined {
    throw new StoreUnavailableError("the change was not stored: Redis at redis://r:6379/0 is unreachable");
  }
  override delete(): void {
    throw new StoreUnavailableError("the change was not stored: Redis down");
  }
  override wipe(): void {
    throw new StoreUnavailableError("the change was not stored: Redis down");
  }
  override aggregate(): PushRejection | undefined {
    throw new StoreUnavailableError("the change was not stored: Redis down");
  }
  override deleteMatching(): GroupingLabels[] {
    throw new StoreUnavailableError("the change was not stored: Redis down");
  }
  async refresh(): Promise<void> {
    this.refreshed++;
  }
  async notReady(): Promise<string | undefined> {
    return "Redis at redis://r:6379/0 is unreachable: not connected";
  }
}

function downContext() {
  const store = new DownStore();
  const { ctx } = recordingContext({ store, enableAdminApi: true });
  return { ctx, store };
}

test("a push the store cannot take is 503 with the store's reason, never 200", async () => {
  const { ctx } = downContext();
  const response = await handleRequest(request("PUT", "/metrics/job/j", { body: "a 1\n" }), ctx);
  assert.equal(response.status, 503);
  assert.equal(response.body, "the change was not stored: Redis at redis://r:6379/0 is unreachable\n");
});

test("DELETE and the admin wipe the store cannot take are 503, not their usual 202", async () => {
  const { ctx } = downContext();
  assert.equal((await handleRequest(request("DELETE", "/metrics/job/j"), ctx)).status, 503);
  assert.equal((await handleRequest(request("PUT", "/api/v1/admin/wipe"), ctx)).status, 503);
});

test("/-/ready is 503 with the reason; /-/healthy stays 200", async () => {
  const { ctx } = downContext();
  const ready = await handleRequest(request("GET", "/-/ready"), ctx);
  assert.equal(ready.status, 503);
  assert.equal(ready.body, "Service Unavailable: Redis at redis://r:6379/0 is unreachable: not connected");
  assert.equal((await handleRequest(request("GET", "/-/healthy"), ctx)).status, 200);
});

test("reads catch the store up first: the scrape, /api/v1/metrics and the status page", async () => {
  const { ctx, store } = downContext();
  for (const path of ["/metrics", "/api/v1/metrics", "/", "/status"]) {
    const before = store.refreshed;
    assert.equal((await handleRequest(request("GET", path), ctx)).status, 200, path);
    assert.equal(store.refreshed, before + 1, path);
  }
});

test("aggregating pushes, deletes by matcher and OTLP exports the store cannot take are 503 too", async () => {
  const { ctx } = downContext();
  const aggregated = await handleRequest(request("POST", "/aggregate/metrics/job/j", { body: "a 1\n" }), ctx);
  assert.equal(aggregated.status, 503);
  assert.equal(aggregated.body, "the change was not stored: Redis down\n");
  const deleted = await handleRequest(
    request("DELETE", "/api/v1/admin/groups", { query: `match[]=${encodeURIComponent('{job="j"}')}` }),
    ctx,
  );
  assert.equal(deleted.status, 503);
  assert.deepEqual(JSON.parse(String(deleted.body)), {
    status: "error",
    errorType: "unavailable",
    error: "the change was not stored: Redis down",
  });
  const body = JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "s" } }] },
        scopeMetrics: [{ metrics: [{ name: "g", gauge: { dataPoints: [{ asDouble: 1 }] } }] }],
      },
    ],
  });
  const exported = await handleRequest(
    request("POST", "/v1/metrics", { body, headers: { "content-type": "application/json" } }),
    ctx,
  );
  assert.equal(exported.status, 503);
  assert.deepEqual(JSON.parse(Buffer.from(exported.body as Buffer).toString()), {
    code: 14,
    message: "the change was not stored: Redis at redis://r:6379/0 is unreachable",
  });
});
