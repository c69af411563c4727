import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { parseText } from "../exposition/parse-text.js";
import { renderFamily } from "../exposition/rendered-family.js";
import { gzipAccepted } from "./metrics.js";
import { handleRequest } from "./routes.js";

const families = () =>
  parseText('# TYPE m gauge\nm{instance="",job="j",z="1"} 2\nm{instance="",job="j"} 1\n').map(renderFamily);

test("scrape() writes the store's families as text 0.0.4, series in upstream's order", async () => {
  const { ctx, store } = recordingContext();
  store.storedFamilies = families();
  const response = await handleRequest(request("GET", "/metrics"), ctx);
  assert.equal(response.status, 200);
  assert.equal(
    response.headers["Content-Type"],
    "text/plain; version=0.0.4; charset=utf-8; escaping=underscores",
  );
  assert.equal(
    bodyText(response.body),
    '# TYPE m gauge\nm{instance="",job="j"} 1\nm{instance="",job="j",z="1"} 2\n',
  );
  assert.equal(response.gzip, undefined);
});

test("scrape() negotiates delimited protobuf and marks the body for gzip when accepted", async () => {
  const { ctx, store } = recordingContext();
  store.storedFamilies = families();
  const response = await handleRequest(
    request("GET", "/metrics", {
      headers: {
        accept: "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
        "accept-encoding": "gzip",
      },
    }),
    ctx,
  );
  assert.match(response.headers["Content-Type"] ?? "", /^application\/vnd\.google\.protobuf; /);
  assert.ok(Buffer.isBuffer(response.body));
  assert.equal(response.gzip, true);
});

test("scrape() of an inconsistent unchecked store is promhttp's 500", async () => {
  const { ctx, store } = recordingContext({ check: false });
  store.problem = 'collected metric "dup" was collected before';
  const response = await handleRequest(
    request("GET", "/metrics", { headers: { "accept-encoding": "gzip" } }),
    ctx,
  );
  assert.equal(response.status, 500);
  assert.equal(
    response.body,
    'An error has occurred while serving metrics:\n\ncollected metric "dup" was collected before\n',
  );
  assert.equal(response.gzip, undefined);
});

test("gzipAccepted() negotiates Accept-Encoding as promhttp 1.23 (gddo NegotiateContentEncoding)", () => {
  const cases: [header: string | undefined, gzip: boolean][] = [
    [undefined, false],
    ["gzip", true],
    ["deflate, gzip;q=0.5", true],
    ["br, deflate", false],
    ["identity", false],
    // An explicit identity with the same q wins: it is offered first.
    ["identity, gzip", false],
    ["gzip, identity;q=0.5", true],
    ["gzip;q=0", false],
    ["*", false],
    ["*;q=0.5, gzip;q=0.6", true],
    ["zstd, gzip;q=0.9", true],
    // An item gddo cannot read ends the list.
    ["br;level=1, gzip", false],
    ["gzip ; q=1.0", true],
  ];
  for (const [header, gzip] of cases) assert.equal(gzipAccepted(header), gzip, String(header));
});
