import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";

test("statusPage() lists each group with its labels and a Delete control that targets its @base64 path", async () => {
  const { ctx, store } = recordingContext();
  store.storedGroups = [
    {
      labels: { job: "j", instance: "" },
      families: new Map(),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const response = await handleRequest(request("GET", "/"), ctx);
  assert.equal(response.headers["Content-Type"], "text/html; charset=utf-8");
  const html = bodyText(response.body);
  assert.match(html, /job="j"/);
  assert.match(html, /instance=""/);
  assert.match(html, /metrics\/job@base64\/ag=\/instance@base64\/=/);
  assert.match(html, /Delete/);
});
