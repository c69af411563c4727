import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import type { Deps } from "../src/deps.js";
import { main } from "../src/main.js";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/tofu");
  host.addRelease("acme/tofu", {
    tag: "v1.0.0",
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `tofu-1.0.0-${p}.tar.gz`,
      data: Buffer.alloc(50_000, p),
      digest: false,
    })),
  });
  host.addRepo("acme/night");
  const commit = host.setTag("acme/night", "nightly", { commit: "tonight" });
  host.addRelease("acme/night", {
    tag: `nightly-${commit}`,
    prerelease: true,
    assets: [
      {
        name: "night-nightly-linux-amd64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "night", version: "n" }),
      },
    ],
  });
});

after(async () => {
  await host.close();
});

test("a TOML syntax error names the file, line and column, with the lines around it", async () => {
  const p = await makeProject(host, '[tools]\nforge = "1"\nanvil = = "1"\n');
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^toolmgr: Cannot parse \/.*toolmgr\.toml:3:9: invalid value\n/);
  assert.match(r.stderr, /anvil = = "1"/);
});

test("platforms written after [tools] gets a message saying where it belongs", async () => {
  const p = await makeProject(host, '[tools]\nfoundry = "1"\nplatforms = ["linux/amd64"]\n');
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /"platforms" is inside \[tools\] because it comes after the \[tools\] header; move the platforms = \[\.\.\.\] line above \[tools\]/,
  );
});

test("status columns fit a nightly pin's long version", async () => {
  const p = await makeProject(
    host,
    localTool("night", { version: "nightly", repo: "acme/night" }) +
      localTool("tofu", { version: "1", repo: "acme/tofu" }),
  );
  assert.equal((await p.run(["lock"])).code, 0);
  const r = await p.run(["status"]);
  const lines = r.stdout.trimEnd().split("\n");
  const column = lines.map((l) => l.search(/(not )?installed/));
  assert.equal(new Set(column).size, 1, r.stdout);
  assert.match(lines[0] ?? "", /nightly-[0-9a-f]{40} {2,}not installed/);
});

/** Runs `lock` in-process with stderr as a terminal or not. */
async function lockWith(dir: string, home: string, tty: boolean): Promise<string> {
  let stderr = "";
  const deps: Deps = {
    io: { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s), isTTY: tty } },
    env: { PATH: process.env.PATH, CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home },
    cwd: dir,
    fetch: globalThis.fetch,
    now: () => new Date(),
    runtime: { platform: "linux", arch: "x64", homedir: home },
    spawn,
    onSignal: () => () => {},
    processes: { pid: process.pid, isRunning: () => true },
  };
  assert.equal(await main(["lock"], deps), 0, stderr);
  return stderr;
}

test("trust-on-first-use downloads in lock show progress: a line each when not a terminal, one redrawn line on a terminal", async () => {
  const p = await makeProject(
    host,
    `platforms = ["linux/amd64", "darwin/arm64"]\n${localTool("tofu", { version: "1", repo: "acme/tofu" })}`,
  );
  const plain = await lockWith(p.dir, p.home, false);
  assert.equal(
    plain.match(/^downloaded tofu \(http:\/\/\S+tofu-1\.0\.0-\S+\.tar\.gz\) to compute its sha256$/gm)
      ?.length,
    2,
    plain,
  );
  const q = await makeProject(
    host,
    `platforms = ["linux/amd64", "darwin/arm64"]\n${localTool("tofu", { version: "1", repo: "acme/tofu" })}`,
  );
  const tty = await lockWith(q.dir, q.home, true);
  assert.doesNotMatch(tty, /downloaded/);
  assert.ok(tty.includes("\r\x1b[K"), JSON.stringify(tty));
});
