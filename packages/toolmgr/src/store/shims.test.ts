import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { tempDir } from "../../test/support/temp-dir.js";
import { formatLockfile, type Lockfile } from "../lockfile.js";
import { INSTALL_MARKER } from "./install-problem.js";
import { installDir, storeLayout } from "./layout.js";
import { writeShims } from "./shims.js";

const run = promisify(execFile);
const digest = (c: string) => c.repeat(64);

/** A lock with two tools, several platforms each, and executables below a `bin/` directory. */
const lock: Lockfile = {
  version: 1,
  tools: [
    {
      name: "foundry",
      constraint: "nightly",
      version: "nightly-0123456789abcdef",
      bin: ["bin/forge", "bin/cast"],
      stripComponents: 0,
      artifacts: [
        { platform: "darwin/arm64", url: "https://example.com/f-darwin.tar.gz", sha256: digest("a") },
        { platform: "linux/amd64", url: "https://example.com/f-linux.tar.gz", sha256: digest("b") },
      ],
    },
    {
      name: "solc",
      constraint: "0.8",
      version: "0.8.30",
      bin: ["solc"],
      stripComponents: 0,
      artifacts: [
        { platform: "linux/amd64", url: "https://example.com/solc", sha256: digest("c") },
        { platform: "linux/arm64", url: "https://example.com/solc-arm", sha256: digest("d") },
      ],
    },
  ],
};

async function install(home: string, name: string, sha256: string, bins: Record<string, string>) {
  const tool = lock.tools.find((t) => t.name === name);
  assert.ok(tool);
  const dir = installDir(storeLayout(home), { name, version: tool.version, sha256 });
  for (const [bin, text] of Object.entries(bins)) {
    await mkdir(join(dir, bin, ".."), { recursive: true });
    await writeFile(join(dir, bin), `#!/bin/sh\necho ${text} "$@"\n`, { mode: 0o755 });
  }
  await writeFile(join(dir, INSTALL_MARKER), "{}\n");
}

test("shimScript() picks the tool, the version and this platform's install out of a multi-tool lock", async () => {
  const work = await tempDir("toolmgr-shim-");
  const home = join(work, "home");
  const project = join(work, "project");
  await mkdir(join(project, "deep", "er"), { recursive: true });
  await writeFile(join(project, "toolmgr.lock"), formatLockfile(lock));
  await writeFile(join(project, "toolmgr.toml"), '[tools]\nfoundry = "nightly"\nsolc = "0.8"\n');
  await install(home, "foundry", digest("b"), { "bin/forge": "forge-linux", "bin/cast": "cast-linux" });
  await install(home, "foundry", digest("a"), { "bin/forge": "forge-darwin", "bin/cast": "cast-darwin" });
  await install(home, "solc", digest("c"), { solc: "solc-linux" });
  const layout = storeLayout(home);
  await writeShims(["forge", "cast", "solc"], { layout, platform: "linux/amd64" });
  const shim = (cmd: string, args: string[]) =>
    run(join(layout.shimsDir, cmd), args, {
      cwd: join(project, "deep", "er"),
      env: { TOOLMGR_HOME: layout.home, PATH: `${layout.shimsDir}:/usr/bin:/bin` },
    });
  assert.equal((await shim("forge", ["build", "--x y"])).stdout, "forge-linux build --x y\n");
  assert.equal((await shim("cast", [])).stdout, "cast-linux\n");
  assert.equal((await shim("solc", ["--version"])).stdout, "solc-linux --version\n");
});

test("writeShims() writes .cmd shims that hand over to toolmgr exec on Windows", async () => {
  const home = await tempDir("toolmgr-shim-");
  const layout = storeLayout(home);
  const written = await writeShims(["forge"], { layout, platform: "windows/amd64" });
  assert.deepEqual(written, [join(layout.shimsDir, "forge.cmd")]);
  const text = await readFile(join(layout.shimsDir, "forge.cmd"), "utf8");
  assert.match(text, /^@echo off\r\n/);
  assert.match(text, /\r\ntoolmgr exec "forge" %\*\r\nexit \/b %ERRORLEVEL%\r\n$/);
});

test("shimScript() refuses a lock entry that would steer it outside the store, and never runs it", async () => {
  const work = await tempDir("toolmgr-shim-");
  const home = join(work, "home");
  const project = join(work, "project");
  // The payload sits in the project itself, reachable through /proc/self/cwd of the shim.
  const payload = join(project, `x-${digest("b").slice(0, 12)}`);
  await mkdir(payload, { recursive: true });
  await writeFile(join(payload, INSTALL_MARKER), "{}\n");
  await writeFile(join(payload, "forge"), "#!/bin/sh\necho pwned\n", { mode: 0o755 });
  // A real store around it, so every ".." in the entries below resolves.
  const whole = join(home, "tools", "foundry", `1.0.0-${digest("b").slice(0, 12)}`);
  await mkdir(whole, { recursive: true });
  await writeFile(join(whole, INSTALL_MARKER), "{}\n");
  const layout = storeLayout(home);
  await writeShims(["forge"], { layout, platform: "linux/amd64" });
  await writeFile(join(project, "toolmgr.toml"), '[tools]\nfoundry = "1"\n');
  const entries = [
    { name: "../../../../../../../../proc/self/cwd", version: "x", bin: "forge", sha: digest("b") },
    { name: "foundry", version: "..", bin: "forge", sha: digest("b") },
    {
      name: "foundry",
      version: "1.0.0",
      bin: `../../../../../../../proc/self/cwd/x-${digest("b").slice(0, 12)}/forge`,
      sha: digest("b"),
    },
    { name: "foundry", version: "1.0.0", bin: "/tmp/forge", sha: digest("b") },
    { name: "foundry", version: "1.0.0", bin: "forge", sha: "../../../x" },
  ];
  for (const e of entries) {
    await writeFile(
      join(project, "toolmgr.lock"),
      `version = 1\n[[tools]]\nname = "${e.name}"\nconstraint = "1"\nversion = "${e.version}"\nbin = ["${e.bin}"]\n[[tools.artifacts]]\nplatform = "linux/amd64"\nurl = "https://example.com/f"\nsha256 = "${e.sha}"\n`,
    );
    const r = await run(join(layout.shimsDir, "forge"), [], {
      cwd: project,
      env: { TOOLMGR_HOME: layout.home, PATH: "/usr/bin:/bin" },
    }).then(
      () => ({ code: 0, stdout: "ran", stderr: "" }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(r.code, 1, JSON.stringify(e));
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /has an invalid entry \(.*\); it was not written by toolmgr lock, so re-run `toolmgr lock`/,
    );
  }
});

test("shimScript() reads a lock whose keys another TOML writer spaced differently", async () => {
  const work = await tempDir("toolmgr-shim-");
  const home = join(work, "home");
  await install(home, "solc", digest("c"), { solc: "solc-linux" });
  await writeFile(
    join(work, "toolmgr.lock"),
    `version = 1\n[[ tools ]]\n  name="solc"\n  constraint="0.8"\n  version  =  "0.8.30"\n  bin=[ "solc" ]\n  [[tools.artifacts]]\n  platform="linux/amd64"\n  url="https://example.com/solc"\n  sha256="${digest("c")}"\n`,
  );
  await writeFile(join(work, "toolmgr.toml"), "[ tools ]  # pinned\n  solc = '0.8' # the compiler\n");
  const layout = storeLayout(home);
  await writeShims(["solc"], { layout, platform: "linux/amd64" });
  const r = await run(join(layout.shimsDir, "solc"), ["--version"], {
    cwd: work,
    env: { TOOLMGR_HOME: layout.home, PATH: "/usr/bin:/bin" },
  });
  assert.equal(r.stdout, "solc-linux --version\n");
});
