import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { parseText } from "../exposition/parse-text.js";
import { renderFamily } from "../exposition/rendered-family.js";
import { handleRequest } from "./routes.js";

test("apiMetrics() lists each group with its families and the two push-time gauges, as upstream's JSON", async () => {
  const { ctx, store } = recordingContext();
  const [family] = parseText('# HELP m A gauge.\n# TYPE m gauge\nm{instance="",job="j"} 1.5\n').map(
    renderFamily,
  );
  assert.ok(family);
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map([["m", family]]),
      pushedAt: new Map([["m", Date.parse("2026-01-02T03:04:05.678Z")]]),
      pushTime: Date.parse("2026-01-02T03:04:05.678Z") / 1000,
      failureTime: 0,
    },
  ];
  const response = await handleRequest(request("GET", "/api/v1/metrics"), ctx);
  assert.equal(response.headers["Content-Type"], "application/json");
  assert.equal(response.headers["Access-Control-Allow-Origin"], "*");
  const json = JSON.parse(bodyText(response.body)) as { status: string; data: Record<string, unknown>[] };
  assert.equal(json.status, "success");
  assert.deepEqual(json.data[0]?.m, {
    time_stamp: "2026-01-02T03:04:05.678Z",
    type: "GAUGE",
    help: "A gauge.",
    metrics: [{ labels: { instance: "", job: "j" }, value: "1.5" }],
  });
  assert.deepEqual(json.data[0]?.labels, { job: "j" });
  assert.equal(json.data[0]?.last_push_successful, true);
  assert.deepEqual((json.data[0]?.push_time_seconds as { metrics: unknown[] } | undefined)?.metrics, [
    { labels: { instance: "", job: "j" }, value: "1.767323045678e+09" },
  ]);
});

test("apiStatus() wraps the status in upstream's envelope; OPTIONS is the CORS preflight without a body", async () => {
  const { ctx } = recordingContext();
  const status = await handleRequest(request("GET", "/api/v1/status"), ctx);
  assert.equal(
    bodyText(status.body),
    '{"status":"success","data":{"flags":{"web.telemetry-path":"/metrics"}}}',
  );
  const options = await handleRequest(request("OPTIONS", "/api/v1/metrics"), ctx);
  assert.equal(options.status, 200);
  assert.equal(options.body, "");
  assert.equal(options.headers["Content-Type"], undefined);
  assert.equal(options.headers["Access-Control-Allow-Methods"], "GET, POST, DELETE, OPTIONS");
});
