import assert from "node:assert/strict";
import { type ChildProcess, fork } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { shRequest } from "../../test/support/sh-request.js";
import { createHelperPool } from "./helper-pool.js";
import type { RunRequest } from "./node-spawn.js";

const HELPER = fileURLToPath(new URL("./helper-entry.js", import.meta.url));
const started: ChildProcess[] = [];
const start = () => {
  const child = fork(HELPER, [], {
    serialization: "advanced",
    execArgv: [],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  started.push(child);
  return child;
};
const sh = (script: string): RunRequest =>
  shRequest(script, { env: { PATH: "/usr/bin:/bin", X: "from env" }, cwd: "/tmp" });

test("commands run in helpers with their argv, env and cwd; output bytes come back intact", async () => {
  const helpers = createHelperPool({ size: 2, start });
  const results = await Promise.all([
    helpers.run(sh('printf "%s|" "$X" "$0"; pwd')),
    helpers.run(sh("printf '\\377\\000\\001'; exit 4")),
    helpers.run(sh("echo third")),
  ]);
  assert.deepEqual(results[0], { output: Buffer.from("from env|sh|/tmp\n") });
  assert.deepEqual(results[1], { output: Buffer.from([0xff, 0, 1]), error: "exit status 4" });
  assert.deepEqual(results[2], { output: Buffer.from("third\n") });
  assert.equal(started.length, 2, "two helpers, started on demand");
  for (const c of started.splice(0)) c.kill();
});

test("a helper that dies fails its runs in flight, and the next run gets a new helper", async () => {
  const helpers = createHelperPool({ size: 1, start });
  const running = helpers.run(sh("sleep 5"));
  await new Promise((r) => setTimeout(r, 200));
  started[0]?.kill("SIGKILL");
  const failed = await running;
  assert.match(failed.error ?? "", /^spawn helper exited/);
  assert.deepEqual(await helpers.run(sh("echo again")), { output: Buffer.from("again\n") });
  assert.equal(started.length, 2);
  for (const c of started.splice(0)) c.kill();
});
