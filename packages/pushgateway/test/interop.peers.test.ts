// A real Prometheus (Debian's prometheus package) scrapes our gateway with honor_labels: true.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort, startGateway, startProcess, stop, stopAll } from "./support/processes.js";

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
  const dir = await mkdtemp(join(tmpdir(), "pg-prometheus-"));
  const promPort = await freePort();
  const config = join(dir, "prometheus.yml");
  await writeFile(
    config,
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n    static_configs:\n      - targets: ["${hostPort}"]\n`,
  );
  const { child: prometheus } = await startProcess(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { ready: /Server is ready to receive web requests/ },
  );
  try {
    const query = `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent("batch_records")}`;
    let result: { metric: Record<string, string>; value: [number, string] }[] = [];
    // Poll until the first scrape lands (bounded: 30 tries).
    for (let i = 0; i < 30 && result.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const body = (await (await fetch(query)).json()) as { data: { result: typeof result } };
      result = body.data.result;
    }
    assert.equal(result.length, 1);
    assert.deepEqual(result[0]?.metric, { __name__: "batch_records", instance: "box1", job: "scraped" });
    assert.equal(result[0]?.value[1], "1234567");
    const up = `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent('up{job="pushgateway"}')}`;
    const upBody = (await (await fetch(up)).json()) as { data: { result: { value: [number, string] }[] } };
    assert.equal(upBody.data.result[0]?.value[1], "1");
  } finally {
    await stop(prometheus);
    await rm(dir, { recursive: true, force: true });
  }
});
