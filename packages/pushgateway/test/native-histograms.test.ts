// Native histograms and exemplars pushed as protobuf (what client_golang sends for a histogram with
// NativeHistogramBucketFactor, or an ObserveWithExemplar) are kept as pushed: a protobuf scrape serves them back, the
// persistence file keeps them across a restart, and the text scrape shows the classic form as before.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { assertRoundTrip, nativePushBody, scrapeProtobuf } from "./support/native-push.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { DELIMITED } from "./support/scrape-fixtures.js";

after(stopAll);

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
