import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Deps } from "../src/deps.js";
import { main } from "../src/main.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/big");
  host.addRelease("acme/big", {
    tag: "v1.0.0",
    assets: [
      { name: "big-1.0.0-linux", data: Buffer.concat([Buffer.from("#!/bin/sh\n"), Buffer.alloc(3_000_000)]) },
    ],
  });
});

after(async () => {
  await host.close();
});

/** Runs `toolmgr sync` through `main()` with stderr as a terminal or not, and a clock that advances 1 s per call. */
async function syncWith(options: { tty: boolean; args?: string[] }) {
  const dir = await tempDir("toolmgr-progress-");
  await writeFile(
    join(dir, "toolmgr.toml"),
    `[tools.big]\nversion = "1"\n[tools.big.source]\ntype = "github_release"\nrepo = "acme/big"\nasset = "big-{version}-{os}"\nbin = ["big"]\nplatforms = ["linux/amd64"]\n`,
  );
  let clock = 0;
  const out = { stdout: "", stderr: "" };
  const deps: Deps = {
    io: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s), isTTY: options.tty },
    },
    env: { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: join(dir, ".home") },
    cwd: dir,
    fetch: globalThis.fetch,
    now: () => {
      clock += 1000;
      return new Date(clock);
    },
    runtime: { platform: "linux", arch: "x64", homedir: dir },
    spawn,
    onSignal: () => () => {},
    processes: { pid: process.pid, isRunning: () => true },
  };
  assert.equal(await main(["lock"], deps), 0);
  out.stdout = "";
  out.stderr = "";
  const code = await main(["sync", ...(options.args ?? [])], deps);
  return { code, ...out };
}

test("sync draws a progress line per download on a terminal (bytes, total, rate) and clears it", async () => {
  const r = await syncWith({ tty: true });
  assert.equal(r.code, 0, r.stderr);
  const clearLine = `\r${String.fromCharCode(27)}[K`;
  assert.ok(r.stderr.includes(`${clearLine}big 1.0.0: `), r.stderr);
  assert.match(r.stderr, /big 1\.0\.0: \d+\.\d\/3\.0 MB at \d+\.\d MB\/s/);
  assert.ok(r.stderr.endsWith(clearLine), "the progress line is cleared before the summary");
  assert.match(r.stdout, /^big {2}installed 1\.0\.0\nshims: big\nadd to PATH: .*\/shims\n$/);
});

test("sync prints plain lines when stderr is not a terminal, and nothing with --quiet", async () => {
  const plain = await syncWith({ tty: false });
  assert.equal(plain.code, 0);
  assert.match(plain.stderr, /^downloaded big 1\.0\.0 \(http:\/\/127\.0\.0\.1:\d+\/.*big-1\.0\.0-linux\)\n$/);
  const quiet = await syncWith({ tty: true, args: ["--quiet"] });
  assert.equal(quiet.code, 0);
  assert.equal(quiet.stdout, "");
  assert.equal(quiet.stderr, "");
});
