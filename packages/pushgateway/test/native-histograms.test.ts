// Native histograms and exemplars pushed as protobuf (what client_golang sends for a histogram with
// NativeHistogramBucketFactor, or an ObserveWithExemplar) are kept as pushed: a protobuf scrape serves them back, the
// persistence file keeps them across a restart, and the text scrape shows the classic form as before.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { metricFamilyType as family } from "./support/metric-family-type.js";
import { COUNTER, HISTOGRAM, nativePushBody } from "./support/native-push.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { DELIMITED, splitDelimited } from "./support/scrape-fixtures.js";

after(stopAll);

async function scrapeProtobuf(base: string): Promise<Record<string, Record<string, unknown>>> {
  const body = Buffer.from(
    await (await fetch(`${base}/metrics`, { headers: { Accept: DELIMITED } })).arrayBuffer(),
  );
  const out: Record<string, Record<string, unknown>> = {};
  for (const m of splitDelimited(body)) {
    const f = family.toObject(family.decode(m), { longs: Number, enums: String, defaults: false }) as {
      name: string;
      metric: Record<string, unknown>[];
    };
    if (f.metric[0] !== undefined) out[f.name] = f.metric[0];
  }
  return out;
}

function assertRoundTrip(scraped: Record<string, Record<string, unknown>>): void {
  assert.deepEqual(scraped.rpc_seconds?.histogram, HISTOGRAM);
  assert.deepEqual(scraped.requests_total?.counter, COUNTER);
  assert.deepEqual(scraped.rpc_seconds?.label, [
    { name: "instance", value: "" },
    { name: "job", value: "native" },
  ]);
}

test("a native histogram and exemplars pushed as protobuf come back whole on a protobuf scrape and after a restart", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-native-"));
  try {
    const file = join(dir, "store.json");
    const first = await startGateway([`--persistence.file=${file}`]);
    const push = await fetch(`${first.base}/metrics/job/native`, {
      method: "PUT",
      headers: { "Content-Type": `${DELIMITED}` },
      body: nativePushBody(),
    });
    assert.equal(push.status, 200, await push.text());
    assertRoundTrip(await scrapeProtobuf(first.base));
    // The text format has no place for native buckets or exemplars: the classic form, as before and as upstream.
    const text = await (await fetch(`${first.base}/metrics`)).text();
    assert.match(text, /^rpc_seconds_bucket\{instance="",job="native",le="1"\} 2$/m);
    assert.match(text, /^rpc_seconds_bucket\{instance="",job="native",le="\+Inf"\} 8$/m);
    assert.match(text, /^requests_total\{instance="",job="native"\} 42$/m);
    assert.doesNotMatch(text, /abc123/);
    await stop(first.child);
    const second = await startGateway([`--persistence.file=${file}`]);
    assertRoundTrip(await scrapeProtobuf(second.base));
    await stop(second.child);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
