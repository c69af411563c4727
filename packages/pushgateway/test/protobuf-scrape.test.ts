// Protobuf exposition on scrape, ours alone (the comparison with 1.5.1 is protobuf-scrape.peers.test.ts): the
// delimited body decodes with an independent schema, families sorted with our own, and the +Inf bucket the text
// exposition adds is in the protobuf one too.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";
import { DELIMITED, decode, PUSHES, type Side, send, splitDelimited } from "./support/scrape-fixtures.js";

let ours: Side;

before(async () => {
  ours = await startGateway();
  for (const p of PUSHES) {
    const answer = await send(ours, "PUT", p.path, p.headers, p.body);
    assert.equal(answer.status, 200, `${p.path}: ${answer.body.toString()}`);
  }
});

after(stopAll);

describe("protobuf exposition", () => {
  test("delimited: our own families are well-formed and sorted with the pushed ones", async () => {
    const o = await send(ours, "GET", "/metrics", { Accept: DELIMITED });
    assert.equal(
      o.contentType,
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=underscores",
    );
    const names = splitDelimited(o.body).map((m) => decode(m).name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes("pushgateway_build_info"));
    assert.ok(names.includes("process_cpu_seconds_total"));
    for (const pushed of ["c", "g", "h", "h2", "pb_gauge", "s", "sp", "u"])
      assert.ok(names.includes(pushed), pushed);
  });

  test("a histogram pushed as text without a +Inf bucket is served with its buckets as pushed, as upstream", async () => {
    const body = '# TYPE hn histogram\nhn_bucket{le="1"} 1\nhn_sum 3\nhn_count 4\n';
    assert.equal((await send(ours, "PUT", "/metrics/job/noinf", {}, body)).status, 200);
    try {
      const answer = await send(ours, "GET", "/metrics", { Accept: DELIMITED });
      const hn = splitDelimited(answer.body)
        .map(decode)
        .find((f) => f.name === "hn");
      assert.deepEqual(hn?.metric?.[0]?.histogram?.bucket, [{ cumulativeCount: 1, upperBound: 1 }]);
    } finally {
      await send(ours, "DELETE", "/metrics/job/noinf");
    }
  });
});
