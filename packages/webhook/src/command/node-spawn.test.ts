import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { shRequest as sh } from "../../test/support/sh-request.js";
import { killGroup } from "./kill-group.js";
import { nodeSpawn } from "./node-spawn.js";

const deps = { spawn, killGroup };

test("stdout and stderr are merged in order; stdin is empty; Go's error texts", async () => {
  const ok = await nodeSpawn(sh("echo out; sleep 0.1; echo err >&2; cat; pwd"), deps);
  assert.deepEqual(ok, { output: Buffer.from("out\nerr\n/\n") });
  assert.equal((await nodeSpawn(sh("exit 3"), deps)).error, "exit status 3");
  assert.equal((await nodeSpawn(sh("kill -9 $$"), deps)).error, "signal: killed");
});

test("a NUL byte in an argument fails like Go's exec, without throwing", async () => {
  const r = await nodeSpawn({ ...sh("true"), args: ["a\u0000b"] }, deps);
  assert.deepEqual(r, { output: Buffer.alloc(0), error: "fork/exec /bin/sh: invalid argument" });
});

test("a missing program is an error result", async () => {
  const r = await nodeSpawn({ ...sh("true"), path: "/nonexistent/x" }, deps);
  assert.equal(r.error, "fork/exec /nonexistent/x: no such file or directory");
});

test("the timeout stops the command's whole process group", async () => {
  const r = await nodeSpawn(sh("sleep 30 & wait", { timeout: 0.2 }), deps);
  assert.equal(r.error, "signal: terminated");
});
