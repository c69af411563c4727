import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { fakeTool } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { type CliResult, runCli, TOOLMGR_BIN } from "./support/run-cli.js";
import { writeTar } from "./support/tar-writer.js";
import { tempDir } from "./support/temp-dir.js";

// A store that is full or read-only, for real: `sync` runs in a user and mount namespace of its own (`unshare -rm`,
// no privileges needed where the kernel allows unprivileged user namespaces) with TOOLMGR_HOME on a tmpfs of a few
// hundred kilobytes. ENOSPC, EDQUOT and EROFS say which store, what was being done and how much room it needed, and
// are never retried nor blamed on the network.

const execFileP = promisify(execFile);
let host: FakeCodeHost;
let namespaces = true;

before(async () => {
  namespaces = await execFileP("unshare", ["-rm", "true"]).then(
    () => true,
    () => false,
  );
  host = await FakeCodeHost.start();
  host.addRepo("acme/big");
  host.addRelease("acme/big", {
    tag: "v1.0.0",
    // 2 MB that do not compress, with the script in front: more than the tmpfs holds.
    assets: [
      {
        name: "big-linux",
        data: Buffer.concat([Buffer.from(fakeTool("big", "1.0.0")), randomBytes(2_000_000)]),
        digest: true,
      },
    ],
  });
  host.addRepo("acme/bomb");
  host.addRelease("acme/bomb", {
    tag: "v1.0.0",
    // A few kilobytes of gzip that unpack to 4 MB of zeros: the download fits, the unpacking does not.
    assets: [
      {
        name: "bomb-linux.tar.gz",
        data: writeTar([
          { name: "bomb", content: fakeTool("bomb", "1.0.0"), mode: 0o755 },
          { name: "zeros", content: Buffer.alloc(4_000_000), mode: 0o644 },
        ]),
        digest: true,
      },
    ],
  });
});

after(async () => {
  await host.close();
});

const tool = (name: string, asset: string) => `platforms = ["linux/amd64"]
[tools.${name}]
version = "1"
[tools.${name}.source]
type = "github_release"
repo = "acme/${name}"
asset = "${asset}"
bin = ["${name}"]
`;

/** Locks `toml` (store elsewhere), then runs `sync` with TOOLMGR_HOME on a fresh tmpfs of `size`. */
async function syncOnTmpfs(toml: string, options: { size: string; readOnly?: boolean }): Promise<CliResult> {
  const dir = await tempDir("toolmgr-store-full-");
  await writeFile(join(dir, "toolmgr.toml"), toml);
  const env = { CODEHOST_API_URL: host.apiUrl, XDG_CONFIG_HOME: join(dir, "config"), CODEHOST_TOKEN: "" };
  const locked = await runCli(["lock"], { cwd: dir, env: { ...env, TOOLMGR_HOME: join(dir, "lock-home") } });
  assert.equal(locked.code, 0, locked.stderr);
  const home = join(dir, "home");
  await mkdir(home);
  // Read-only: the store's directories exist (a store used before), then the file system is made read-only.
  const script = options.readOnly
    ? 'mount -t tmpfs -o size="$1" tmpfs "$2" && mkdir -p "$2/cache/sha256" && mount -o remount,ro "$2" && shift 2 && exec "$@"'
    : 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"';
  return new Promise((resolve, reject) => {
    const child = spawn(
      "unshare",
      ["-rm", "sh", "-c", script, "sh", options.size, home, process.execPath, TOOLMGR_BIN, "sync"],
      { cwd: dir, env: { ...process.env, ...env, TOOLMGR_HOME: home }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("a store that fills up during the download says so, with the size needed, and retries nothing", async (t) => {
  if (!namespaces) return t.skip("unprivileged user namespaces are not available (unshare -rm)");
  const count = () =>
    [...host.requests]
      .filter(([path]) => path.includes("big-linux") || path.startsWith("storage:"))
      .reduce((n, [, c]) => n + c, 0);
  const before = count();
  const r = await syncOnTmpfs(tool("big", "big-{os}"), { size: "512k" });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /(^|\n)toolmgr: Cannot download "big" 1\.0\.0 into the store: the file system is full \(ENOSPC\) at .*\/home\/cache; it needs 20\d{5} bytes \(\d+ bytes free there\)\. Free some space \(`toolmgr prune` removes what no project pins\), or set TOOLMGR_HOME to a store on another file system; nothing was installed\n$/,
  );
  assert.doesNotMatch(r.stderr, /network|tried \d+ times|unexpected/);
  // The web origin's redirect and the storage origin's answer: one download, not retried.
  assert.equal(count() - before, 2, [...host.requests.keys()].join(", "));
});

test("a store that fills up while unpacking says so, with what was unpacked; nothing is installed", async (t) => {
  if (!namespaces) return t.skip("unprivileged user namespaces are not available (unshare -rm)");
  const r = await syncOnTmpfs(tool("bomb", "bomb-{os}.tar.gz"), { size: "1m" });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /(^|\n)toolmgr: Cannot unpack "bomb" 1\.0\.0 into the store: the file system is full \(ENOSPC\) at .*\/home\/tools\/bomb; it had unpacked \d+ bytes of the \d+-byte archive when the room ran out, and needs more \(\d+ bytes free there\)\. Free some space/,
  );
  assert.doesNotMatch(r.stderr, /unexpected|\n {4}at /);
});

test("a read-only store says so and is not retried", async (t) => {
  if (!namespaces) return t.skip("unprivileged user namespaces are not available (unshare -rm)");
  const r = await syncOnTmpfs(tool("big", "big-{os}"), { size: "512k", readOnly: true });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /the file system is read-only \(EROFS\) at .*\/home/);
  assert.match(r.stderr, /Make it writable, or set TOOLMGR_HOME to a store on another file system/);
  assert.doesNotMatch(r.stderr, /network|unexpected/);
});
