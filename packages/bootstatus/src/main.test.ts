import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Io } from "./main.js";
import { main } from "./main.js";
import type { RunSystemctl } from "./systemd.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/", import.meta.url));

function fakeIo(options: { systemctl?: RunSystemctl; onSleep?: (count: number) => void } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let now = 1_000_000;
  let sleeps = 0;
  const io: Io = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env: {},
    readInput: async () => "",
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      options.onSleep?.(++sleeps);
    },
    systemctl:
      options.systemctl ??
      (async (args) => ({
        ok: true,
        stdout:
          args[0] === "show" ? "ActiveState=active\nUnitFileState=enabled\nSubState=exited\nMainPID=0\n" : "",
        stderr: "",
      })),
  };
  return { io, out, err };
}

test("main() --wait prints one dot per poll, like upstream test_status_wait_blocks_until_done", async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-main-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(path.join(FIXTURES, "not-started/root"), root, { recursive: true });
  const running = path.join(FIXTURES, "running-stage-init/root/run/cloud-init/status.json");
  const done = path.join(FIXTURES, "done-nocloud/root/run/cloud-init/status.json");
  // Upstream: status.json appears at the 2nd sleep, boot finishes at the 3rd; output "....status: done".
  const { io, out } = fakeIo({
    onSleep: (n) => {
      if (n === 2) cpSync(running, path.join(root, "run/cloud-init/status.json"));
      if (n === 3) {
        cpSync(done, path.join(root, "run/cloud-init/status.json"));
        writeFileSync(path.join(root, "run/cloud-init/result.json"), "{}");
      }
    },
  });
  assert.equal(await main(["--wait", "--root", root], io), 0);
  assert.equal(out.join(""), "....status: done\n");
});

test("main() --timeout stops at the deadline on a fake clock and exits 3", async () => {
  const { io, out } = fakeIo();
  const root = path.join(FIXTURES, "running-stage-init/root");
  assert.equal(await main(["--timeout", "1", "--root", root], io), 3);
  // Polls at 0, 250, 500 and 750 ms of fake time, then the deadline.
  assert.equal(out.join(""), "....status: running\n");
});

test("main() turns a failed cloud-init unit into status error, exit 1", async () => {
  const { io, out } = fakeIo({
    systemctl: async (args) => ({
      ok: true,
      stdout:
        args[0] === "show" ? "ActiveState=failed\nUnitFileState=enabled\nSubState=failed\nMainPID=0" : "",
      stderr: "",
    }),
  });
  const root = path.join(FIXTURES, "empty-status-json/root");
  assert.equal(await main(["--long", "--root", root], io), 1);
  assert.match(out.join(""), /^status: error\nextended_status: error - done\n/);
  assert.match(out.join(""), /detail: Failed due to systemd unit failure\n/);
});

test("main() reports usage errors on stderr with exit 2", async () => {
  const { io, out, err } = fakeIo();
  assert.equal(await main(["--long", "--wat"], io), 2);
  assert.equal(out.join(""), "");
  assert.match(err.join(""), /^usage: bootstatus .*\nbootstatus: error: unrecognized arguments: --wat\n$/s);
});

test("main() --wait ends in error like upstream test_status_wait_blocks_until_error: dots, then exit 1", async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-main-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(path.join(FIXTURES, "not-started/root"), root, { recursive: true });
  const running = path.join(FIXTURES, "running-stage-init/root/run/cloud-init/status.json");
  const failed = path.join(FIXTURES, "error-done/root/run/cloud-init/status.json");
  const { io, out } = fakeIo({
    onSleep: (n) => {
      if (n === 2) cpSync(running, path.join(root, "run/cloud-init/status.json"));
      if (n === 3) {
        cpSync(failed, path.join(root, "run/cloud-init/status.json"));
        writeFileSync(path.join(root, "run/cloud-init/result.json"), '"{}"');
      }
    },
  });
  assert.equal(await main(["--wait", "--root", root], io), 1);
  assert.equal(out.join(""), "....status: error\n");
});

test("main() --wait in json prints no dots while waiting (status.py writes them for tabular only)", async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-main-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(path.join(FIXTURES, "not-started/root"), root, { recursive: true });
  const done = path.join(FIXTURES, "done-nocloud/root/run/cloud-init/status.json");
  const { io, out } = fakeIo({
    onSleep: (n) => {
      if (n === 2) {
        cpSync(done, path.join(root, "run/cloud-init/status.json"));
        writeFileSync(path.join(root, "run/cloud-init/result.json"), "{}");
      }
    },
  });
  assert.equal(await main(["--wait", "--format", "cloud-init-json", "--root", root], io), 0);
  assert.match(out.join(""), /^\{\n {2}"boot_status_code": "unknown",/);
});
