// prom-client's Pushgateway (an npm dependency, so in the Node-only suite) against our gateway.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Gauge, Pushgateway, Registry } from "prom-client";
import { startGateway, stopAll } from "./support/processes.js";

let base: string;

before(async () => {
  ({ base } = await startGateway());
});

after(stopAll);

test("prom-client's Pushgateway pushes, adds and deletes", async () => {
  const registry = new Registry();
  new Gauge({ name: "node_job_done", help: "Done.", registers: [registry] }).set(3);
  const client = new Pushgateway(base, {}, registry);
  const pushed = await client.push({ jobName: "nodejob", groupings: { instance: "i1" } });
  assert.equal((pushed.resp as { statusCode?: number } | undefined)?.statusCode, 200);
  const extra = new Registry();
  new Gauge({ name: "node_job_extra", help: "Extra.", registers: [extra] }).set(4);
  await new Pushgateway(base, {}, extra).pushAdd({ jobName: "nodejob", groupings: { instance: "i1" } });
  let text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /^node_job_done\{instance="i1",job="nodejob"\} 3$/m);
  assert.match(text, /^node_job_extra\{instance="i1",job="nodejob"\} 4$/m);
  await client.delete({ jobName: "nodejob", groupings: { instance: "i1" } });
  text = await (await fetch(`${base}/metrics`)).text();
  assert.doesNotMatch(text, /job="nodejob"/);
});
