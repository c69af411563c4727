// A real Prometheus (Debian's 2.42, --enable-feature=native-histograms) scrapes a native histogram pushed to our
// gateway as protobuf and computes histogram_quantile, histogram_count and histogram_sum from it.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { nativePushBody } from "./support/native-push.js";
import { startGateway, stopAll } from "./support/processes.js";
import { startPrometheus } from "./support/prometheus.js";
import { DELIMITED } from "./support/scrape-fixtures.js";

after(stopAll);

test("Prometheus with native histograms computes histogram_quantile from a native histogram pushed to ours", async () => {
  const { base } = await startGateway();
  const push = await fetch(`${base}/metrics/job/native`, {
    method: "PUT",
    headers: { "Content-Type": DELIMITED },
    body: nativePushBody(),
  });
  assert.equal(push.status, 200);
  const prometheus = await startPrometheus(new URL(base).host, { nativeHistograms: true });
  try {
    const query = async (q: string) => (await prometheus.query(q))[0]?.value[1];
    let count: string | undefined;
    // Poll until the first scrape lands (bounded: 60 tries).
    for (let i = 0; i < 60 && count === undefined; i++) {
      await new Promise((r) => setTimeout(r, 500));
      count = await query('histogram_count(rpc_seconds{job="native"})');
    }
    assert.equal(count, "8");
    assert.equal(await query('histogram_sum(rpc_seconds{job="native"})'), "12.5");
    // 2 observations below zero or in the zero bucket, then bucket 0 (2^-1/8, 1] holds the 3rd and 4th: the median
    // is its upper bound.
    assert.equal(await query('histogram_quantile(0.5, rpc_seconds{job="native"})'), "1");
    // The 99th percentile falls in bucket 5, (2^(4/8), 2^(5/8)].
    const p99 = Number(await query('histogram_quantile(0.99, rpc_seconds{job="native"})'));
    assert.ok(p99 > 2 ** 0.5 && p99 <= 2 ** 0.625, String(p99));
  } finally {
    await prometheus.close();
  }
});
