import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";

// The CLI takes the platform from `process`, so these run `main` with the machine injected through `deps.runtime`.

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/hello");
  host.addRelease("acme/hello", {
    tag: "v1.0.0",
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `hello-1.0.0-${p}.tar.gz`,
      data: Buffer.from(`hello ${p}`),
    })),
  });
});

after(async () => {
  await host.close();
});

/** A temp project whose commands run on `platform`/`arch` as Node names them, counting the processes started. */
async function project(toml: string, machine: { platform: string; arch: string }) {
  let spawned = 0;
  const counting = ((...a: Parameters<typeof spawn>) => {
    spawned++;
    return spawn(...a);
  }) as typeof spawn;
  const p = await makeProject(host, toml, { machine, spawn: counting });
  return { ...p, spawned: () => spawned };
}

const HELLO = localTool("hello", { version: "1", repo: "acme/hello" });

test("lock without a platforms list refuses an unsupported machine, naming it and the fix; nothing is written", async () => {
  const p = await project(HELLO, { platform: "freebsd", arch: "x64" });
  host.requests.clear();
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "toolmgr: Cannot lock for this machine (freebsd/x64): it is not a supported platform; list platforms in toolmgr.toml\n",
  );
  assert.equal(host.requests.size, 0, "decided before any request");
  await assert.rejects(stat(join(p.dir, "toolmgr.lock")));
});

test("lock on an unsupported machine works from a platforms list; sync, status and exec then refuse the machine", async () => {
  // A 32-bit ARM Linux (a Raspberry Pi): the OS is supported, the architecture is not.
  const p = await project(`platforms = ["linux/amd64"]\n${HELLO}`, { platform: "linux", arch: "arm" });
  const locked = await p.run(["lock"]);
  assert.equal(locked.code, 0, locked.stderr);
  const lock = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  host.requests.clear();

  const sync = await p.run(["sync"]);
  assert.deepEqual(sync, {
    code: 1,
    stdout: "",
    stderr: "toolmgr: Cannot sync on linux/arm: not a supported platform\n",
  });
  await assert.rejects(stat(join(p.home, "tools")), "nothing installed");
  await assert.rejects(stat(join(p.home, "shims")), "no shims written");

  const status = await p.run(["status"]);
  assert.deepEqual(status, {
    code: 1,
    stdout: "",
    stderr: "toolmgr: Cannot report on linux/arm: not a supported platform\n",
  });

  const exec = await p.run(["exec", "--", "hello", "--version"]);
  assert.deepEqual(exec, {
    code: 1,
    stdout: "",
    stderr: "toolmgr: Cannot run on linux/arm: not a supported platform\n",
  });
  assert.equal(p.spawned(), 0, "exec started nothing");

  assert.equal(host.requests.size, 0, "no command touched the network");
  assert.equal(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), lock, "the lock is untouched");
});

test("a known OS with an unknown architecture, and the reverse, are both unsupported", async () => {
  for (const machine of [
    { platform: "win32", arch: "ia32" },
    { platform: "openbsd", arch: "arm64" },
  ]) {
    const p = await project(HELLO, machine);
    const r = await p.run(["status"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `toolmgr: Cannot report on ${machine.platform}/${machine.arch}: not a supported platform\n`,
    );
  }
});
