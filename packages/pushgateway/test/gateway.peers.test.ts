// Real clients against our gateway: Debian's python3-prometheus-client pushes, adds and deletes; promtool (Debian's
// prometheus package) checks the exposition.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startGateway, stopAll } from "./support/processes.js";
import { promtoolProblems } from "./support/prometheus.js";

const exec = promisify(execFile);
let base: string;

before(async () => {
  ({ base } = await startGateway());
  await fetch(`${base}/metrics/job/some_job`, {
    method: "PUT",
    body: "# HELP m A metric.\n# TYPE m gauge\nm 1\n",
  });
});

after(stopAll);

const scrape = async () => (await fetch(`${base}/metrics`)).text();

test("the Python prometheus_client pushes, adds and deletes through the gateway", async () => {
  const script = `
import sys
from prometheus_client import CollectorRegistry, Gauge, push_to_gateway, pushadd_to_gateway, delete_from_gateway
r = CollectorRegistry()
g = Gauge('job_last_success_unixtime', 'Last time a batch job successfully finished', registry=r)
g.set(42)
push_to_gateway(sys.argv[1], job='pyjob', registry=r)
r2 = CollectorRegistry()
Gauge('py_extra', 'Extra', registry=r2).set(7)
pushadd_to_gateway(sys.argv[1], job='pyjob', registry=r2)
`;
  await exec("/usr/bin/python3", ["-c", script, base.replace("http://", "")], { timeout: 60_000 });
  const text = await scrape();
  assert.match(text, /^job_last_success_unixtime\{instance="",job="pyjob"\} 42$/m);
  assert.match(text, /^py_extra\{instance="",job="pyjob"\} 7$/m);
  await exec(
    "/usr/bin/python3",
    [
      "-c",
      "import sys\nfrom prometheus_client import delete_from_gateway\ndelete_from_gateway(sys.argv[1], job='pyjob')",
      base.replace("http://", ""),
    ],
    { timeout: 60_000 },
  );
  assert.doesNotMatch(await scrape(), /job="pyjob"/);
});

test("the output passes promtool check metrics (apart from pushed families without HELP)", async () => {
  const text = await scrape();
  assert.deepEqual(await promtoolProblems(text), []);
});
