// A real Prometheus (Debian's prometheus package) scrapes our gateway with honor_labels: true.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";
import { type QueryResult, startPrometheus } from "./support/prometheus.js";

let base: string;
let hostPort: string;

before(async () => {
  ({ base } = await startGateway());
  hostPort = new URL(base).host;
});

after(stopAll);

test("a real Prometheus scrapes the gateway with honor_labels: true", async () => {
  await fetch(`${base}/metrics/job/scraped/instance/box1`, {
    method: "PUT",
    body: "# TYPE batch_records gauge\nbatch_records 1234567\n",
  });
  const prometheus = await startPrometheus(hostPort);
  try {
    let result: QueryResult[] = [];
    // Poll until the first scrape lands (bounded: 30 tries).
    for (let i = 0; i < 30 && result.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      result = await prometheus.query("batch_records");
    }
    assert.equal(result.length, 1);
    assert.deepEqual(result[0]?.metric, { __name__: "batch_records", instance: "box1", job: "scraped" });
    assert.equal(result[0]?.value[1], "1234567");
    assert.equal((await prometheus.query('up{job="pushgateway"}'))[0]?.value[1], "1");
  } finally {
    await prometheus.close();
  }
});
