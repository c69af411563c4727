import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import {
  type BlockProject,
  blockProject,
  blockTool,
  publishBlockTool,
  startBlockHost,
} from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli, TOOLMGR_BIN } from "./support/run-cli.js";
import { writeTar } from "./support/tar-writer.js";

// nao1215/block e2e/atago/sync.atago.yaml, artifacts.atago.yaml, status.atago.yaml, exec.atago.yaml, shim.atago.yaml,
// signal.atago.yaml and contract.atago.yaml, translated: our wording; "missing, stale or damaged" is exit 3.

const execFileP = promisify(execFile);
let host: FakeCodeHost;
let redirector: Server;

before(async () => {
  host = await startBlockHost();
  // Answers every request with a redirect to plain http on a host that is not loopback.
  redirector = createServer((_req, res) => {
    res.writeHead(302, { location: "http://mirror.example.com/downgraded.tar.gz" });
    res.end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
  host.addRepo("acme/kit");
  // Two tools' worth of commands in one archive, one of them under bin/, and a wrapping directory.
  await publishBlockTool(host, "kit", "2.0.0", {
    data: writeTar([
      { name: "kit-2.0.0/", type: "directory" },
      { name: "kit-2.0.0/bin/kit-cli", ...script('echo "kit-cli 2.0.0 $*"; exit 0') },
      { name: "kit-2.0.0/bin/kit-exit", ...script('echo "exiting $1"; exit "$1"') },
      { name: "kit-2.0.0/bin/kit-stdio", ...script('cat; echo "to stderr" >&2') },
    ]),
  });
  host.addRepo("acme/plain");
  await publishBlockTool(host, "plain", "1.0.0");
});

after(async () => {
  await host.close();
  redirector.closeAllConnections();
  await new Promise((resolve) => redirector.close(resolve));
});

const PLATFORM = 'platforms = ["linux/amd64"]\n';
const script = (text: string) => ({ content: `#!/bin/sh\n${text}\n`, mode: 0o755 });

async function locked(toml: string): Promise<BlockProject> {
  const p = await blockProject(host, toml);
  const r = await p.run("lock");
  assert.equal(r.code, 0, r.stderr);
  return p;
}

const lockPath = (p: BlockProject) => join(p.dir, "toolmgr.lock");

async function editLock(p: BlockProject, from: RegExp, to: string): Promise<void> {
  const text = await readFile(lockPath(p), "utf8");
  assert.match(text, from);
  await writeFile(lockPath(p), text.replace(from, to));
}

const KIT = `${PLATFORM}[tools.kit]
version = "2"
[tools.kit.source]
type = "github_release"
repo = "acme/kit"
asset = "kit_{version}_{os}_{arch}.tar.gz"
strip_components = 1
bin = ["bin/kit-cli", "bin/kit-exit", "bin/kit-stdio"]
${blockTool("plain", "1")}`;

test("executables under bin/ of a wrapped archive are installed, and every command of every tool is on exec's PATH", async () => {
  const p = await locked(KIT);
  const synced = await p.run("sync");
  assert.match(
    synced.stdout,
    /^kit {4}installed 2\.0\.0\nplain {2}installed 1\.0\.0\nshims: kit-cli, kit-exit, kit-stdio, plain\n/,
  );
  const installs = await readdir(join(p.home, "tools", "kit"));
  assert.equal(installs.length, 1);
  const tree = await readdir(join(p.home, "tools", "kit", installs[0] ?? ""), { recursive: true });
  assert.ok(tree.includes(join("bin", "kit-cli")), tree.join(", "));
  assert.ok(!tree.some((entry) => entry.includes("kit-2.0.0")), "the wrapping directory was stripped");
  const both = await p.run("exec", "sh", "-c", "kit-cli a && plain b");
  assert.equal(both.stdout, "kit-cli 2.0.0 a\nplain 1.0.0 b\n", both.stderr);

  // exec.atago.yaml: an executable script run directly sees the toolchain; exec works from a subdirectory.
  await mkdir(join(p.dir, "scripts", "deep"), { recursive: true });
  await writeFile(join(p.dir, "scripts", "it.sh"), "#!/bin/sh\nkit-cli from-script\n", { mode: 0o755 });
  const viaScript = await runCli(["exec", "./scripts/it.sh"], {
    cwd: p.dir,
    env: { TOOLMGR_HOME: p.home, PATH: "/usr/bin:/bin", XDG_CONFIG_HOME: join(p.dir, "config") },
  });
  assert.equal(viaScript.stdout, "kit-cli 2.0.0 from-script\n", viaScript.stderr);
  const fromSub = await runCli(["exec", "kit-cli", "deep"], {
    cwd: join(p.dir, "scripts", "deep"),
    env: { TOOLMGR_HOME: p.home, PATH: "/usr/bin:/bin", XDG_CONFIG_HOME: join(p.dir, "config") },
  });
  assert.equal(fromSub.stdout, "kit-cli 2.0.0 deep\n");

  // shim.atago.yaml: a nested directory belongs to the project above it; the tool's exit status is the shim's.
  assert.equal((await p.shim("kit-cli", { cwd: join(p.dir, "scripts", "deep") })).stdout, "kit-cli 2.0.0 \n");
  const exit3 = await p.shim("kit-exit", { args: ["3"] });
  assert.equal(exit3.code, 3);
  assert.equal(exit3.stdout, "exiting 3\n");
  assert.equal((await p.run("exec", "kit-exit", "42")).code, 42);

  // signal.atago.yaml: stdin, stdout and stderr stay connected to the child.
  const piped = await execFileP(
    "sh",
    ["-c", `printf 'hello\\n' | "${process.execPath}" "${TOOLMGR_BIN}" exec kit-stdio`],
    {
      cwd: p.dir,
      env: { TOOLMGR_HOME: p.home, PATH: "/usr/bin:/bin", XDG_CONFIG_HOME: join(p.dir, "config") },
    },
  );
  assert.equal(piped.stdout, "hello\n");
  assert.equal(piped.stderr, "to stderr\n");
});

test("sync and exec need no code host: a cold store installs from the locked URLs; exec and status stay offline", async () => {
  const p = await locked(`${PLATFORM}${blockTool("plain", "1")}`);
  const env = {
    TOOLMGR_HOME: join(p.dir, "cold"),
    CODEHOST_API_URL: "http://127.0.0.1:1",
    PATH: "/usr/bin:/bin",
    XDG_CONFIG_HOME: join(p.dir, "config"),
  };
  const apiBefore = host.count("/");
  const downloads = host.count("web:/acme/plain/releases/download/v1.0.0/plain_1.0.0_linux_amd64.tar.gz");
  const synced = await runCli(["sync"], { cwd: p.dir, env });
  assert.equal(synced.code, 0, synced.stderr);
  assert.match(synced.stdout, /^plain {2}installed 1\.0\.0\n/);
  assert.equal(
    host.count("web:/acme/plain/releases/download/v1.0.0/plain_1.0.0_linux_amd64.tar.gz"),
    downloads + 1,
    "the exact locked URL",
  );
  assert.equal((await runCli(["exec", "plain", "x"], { cwd: p.dir, env })).stdout, "plain 1.0.0 x\n");
  assert.equal((await runCli(["status"], { cwd: p.dir, env })).code, 0);
  assert.equal(host.count("/"), apiBefore, "no API request");

  // sync.atago.yaml "two projects share one store and the second never downloads".
  const second = await blockProject(host, `${PLATFORM}${blockTool("plain", "1")}`);
  await writeFile(lockPath(second), await readFile(lockPath(p), "utf8"));
  const shared = await runCli(["sync"], { cwd: second.dir, env });
  assert.match(shared.stdout, /^plain {2}present 1\.0\.0\n/);
  assert.equal(
    host.count("web:/acme/plain/releases/download/v1.0.0/plain_1.0.0_linux_amd64.tar.gz"),
    downloads + 1,
  );
});

test("a checksum mismatch installs nothing and leaves an existing install alone; a redirect to plain http is refused naming the tool", async () => {
  const p = await locked(`${PLATFORM}${blockTool("plain", "1")}`);
  assert.equal((await p.run("sync")).code, 0);
  const good = await readFile(lockPath(p), "utf8");
  await editLock(p, /sha256 = "[0-9a-f]{4}/, 'sha256 = "0000');
  await rm(join(p.home, "cache"), { recursive: true });
  const mismatch = await p.run("sync");
  assert.equal(mismatch.code, 1);
  assert.match(
    mismatch.stderr,
    /Cannot verify "plain" from \S+: expected sha256 0000[0-9a-f]{60}, got [0-9a-f]{64}/,
  );
  assert.equal(
    (await readdir(join(p.home, "tools", "plain"))).length,
    1,
    "the existing install is still there",
  );
  await writeFile(lockPath(p), good);
  assert.match((await p.run("sync")).stdout, /^plain {2}present 1\.0\.0\n/);

  const { port } = redirector.address() as AddressInfo;
  await editLock(p, /url = "[^"]+"/, `url = "http://127.0.0.1:${port}/downgrade/plain.tar.gz"`);
  const fresh = {
    TOOLMGR_HOME: join(p.dir, "fresh"),
    PATH: "/usr/bin:/bin",
    XDG_CONFIG_HOME: join(p.dir, "config"),
  };
  const redirected = await runCli(["sync"], { cwd: p.dir, env: fresh });
  assert.equal(redirected.code, 1);
  const expected = `toolmgr: Cannot download "plain" 1.0.0: Cannot follow the redirect from http://127.0.0.1:${port}/downgrade/plain.tar.gz to http://mirror.example.com/downgraded.tar.gz: only https URLs are allowed\n`;
  assert.ok(redirected.stderr.endsWith(expected), redirected.stderr);
  assert.equal(existsSync(join(p.dir, "fresh", "tools")), false);
});

for (const [label, from, to, message] of [
  [
    "a plain-http URL off loopback",
    /url = "http:\/\/127\.0\.0\.1:\d+/,
    'url = "http://mirror.example.com',
    /of tool "plain" for linux\/amd64 is not an https URL/,
  ],
  [
    "a digest that is not hex",
    /sha256 = "[0-9a-f]{64}"/,
    'sha256 = "nothex"',
    /sha256 of tool "plain" for linux\/amd64 must be 64 lower-case hex digits/,
  ],
  [
    "a newer lock format",
    /^version = 1$/m,
    "version = 2",
    /unsupported format version 2 \(this toolmgr reads version 1\)/,
  ],
  [
    "a version that climbs out of the store",
    /version = "1\.0\.0"/,
    'version = "1.0/../../../outside"',
    /invalid version "1\.0\/\.\.\/\.\.\/\.\.\/outside" of tool "plain"/,
  ],
  [
    "a version with backslashes",
    /version = "1\.0\.0"/,
    'version = "1.0\\\\..\\\\..\\\\outside"',
    /invalid version "1\.0\\\.\.\\\.\.\\outside" of tool "plain"/,
  ],
  [
    "a bin entry outside the install",
    /bin = \["plain"\]/,
    'bin = ["../../../../../../bin/sh"]',
    /Invalid executable path "\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/bin\/sh" in the lock's tool "plain"/,
  ],
  ["an absolute bin entry", /bin = \["plain"\]/, 'bin = ["/bin/sh"]', /Invalid executable path "\/bin\/sh"/],
  [
    "a drive-qualified bin entry",
    /bin = \["plain"\]/,
    'bin = ["C:\\\\Windows\\\\System32\\\\cmd"]',
    /Invalid executable path "C:\\Windows\\System32\\cmd"/,
  ],
  [
    "a tool name that reaches outside its install",
    /name = "plain"/,
    'name = "../shims"',
    /invalid tool name "\.\.\/shims"/,
  ],
] as const) {
  test(`a hand-edited lock with ${label} is refused by sync and exec before any request`, async () => {
    const p = await locked(`${PLATFORM}${blockTool("plain", "1")}`);
    await editLock(p, from, to);
    const requests = host.count("/") + host.count("web:");
    for (const command of [["sync"], ["exec", "plain"]]) {
      const r = await p.run(...command);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /^toolmgr: Cannot parse lock: /);
      assert.match(r.stderr, message);
    }
    assert.equal(host.count("/") + host.count("web:"), requests);
    assert.equal(existsSync(join(p.home, "tools")), false);
  });
}

test("sync without a lock, with a platforms list that leaves this machine out, or with a lock made for another machine", async () => {
  const p = await blockProject(host, `${PLATFORM}${blockTool("plain", "1")}`);
  const none = await p.run("sync");
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^toolmgr: Cannot find .*toolmgr\.lock: run `toolmgr lock` first\n$/);

  const fix =
    /the lock has no artifact for linux\/amd64; add "linux\/amd64" to platforms in toolmgr\.toml and run `toolmgr lock`/;
  await writeFile(join(p.dir, "toolmgr.toml"), `platforms = ["darwin/arm64"]\n${blockTool("mac", "1")}`);
  host.addRepo("acme/mac");
  host.addRelease("acme/mac", {
    tag: "v1.0.1",
    assets: [{ name: "mac_1.0.1_darwin_arm64.tar.gz", data: Buffer.from("darwin"), digest: true }],
  });
  assert.equal((await p.run("lock")).code, 0);
  for (const command of [["sync"], ["exec", "mac"]]) {
    const r = await p.run(...command);
    assert.equal(r.code, 1);
    assert.match(r.stderr, fix);
  }
  const status = await p.run("status");
  assert.equal(status.code, 3);
  assert.match(
    status.stdout,
    /^mac +1 +1\.0\.1 +not installed +stale +\(the lock has no artifact for linux\/amd64; add/,
  );

  // A lock made elsewhere, and a project file without a platforms list: still "run toolmgr lock".
  await writeFile(join(p.dir, "toolmgr.toml"), blockTool("mac", "1"));
  const elsewhere = await p.run("sync");
  assert.equal(elsewhere.code, 1);
  assert.match(elsewhere.stderr, /mac: the lock has no artifact for linux\/amd64.*run `toolmgr lock`/);
});

test("a registry pin whose project-local source was removed from toolmgr.toml is stale", async () => {
  const p = await locked(`${PLATFORM}[tools.cometbft]
version = "1.2"
[tools.cometbft.source]
type = "github_release"
repo = "acme/hello"
asset = "hello_{version}_{os}_{arch}.tar.gz"
bin = ["hello"]
`);
  assert.equal((await p.run("sync")).code, 0);
  await writeFile(join(p.dir, "toolmgr.toml"), `${PLATFORM}[tools]\ncometbft = "1.2"\n`);
  const synced = await p.run("sync");
  assert.equal(synced.code, 1);
  assert.match(
    synced.stderr,
    /toolmgr\.lock is out of date:\n {2}cometbft: its source definition changed since it was locked; run `toolmgr lock`\n/,
  );
  const status = await p.run("status");
  assert.equal(status.code, 3);
  assert.match(status.stdout, /stale +\(its source definition changed since it was locked/);
});

test("status: a damaged install, an unreadable lock, and --json before and after an install goes missing", async () => {
  const p = await locked(KIT);
  assert.equal((await p.run("sync")).code, 0);
  const json = await p.run("status", "--json");
  assert.equal(json.code, 0);
  const rows = JSON.parse(json.stdout) as {
    name: string;
    constraint: string;
    version: string;
    installed: boolean;
    stale: boolean;
    reason?: string;
  }[];
  assert.deepEqual(
    rows.map((r) => [r.name, r.constraint, r.version, r.installed, r.stale]),
    [
      ["kit", "2", "2.0.0", true, false],
      ["plain", "1", "1.0.0", true, false],
    ],
  );

  const plainDir = join(p.home, "tools", "plain", (await readdir(join(p.home, "tools", "plain")))[0] ?? "");
  await rm(join(plainDir, "plain"));
  const damaged = await p.run("status");
  assert.equal(damaged.code, 3);
  assert.match(
    damaged.stdout,
    /^plain +1 +1\.0\.0 +not installed +\(damaged: the executable "plain" is missing; run `toolmgr sync`\)$/m,
  );
  await rm(join(p.home, "tools", "plain"), { recursive: true });
  const missing = await p.run("status", "--json");
  assert.equal(missing.code, 3);
  const after = JSON.parse(missing.stdout) as { name: string; installed: boolean; reason?: string }[];
  assert.deepEqual(
    after.map((r) => [r.name, r.installed, r.reason]),
    [
      ["kit", true, undefined],
      ["plain", false, "not installed; run `toolmgr sync`"],
    ],
  );

  await editLock(p, /sha256 = "[0-9a-f]{64}"/, 'sha256 = "nothex"');
  const unreadable = await p.run("status");
  assert.equal(unreadable.code, 1);
  assert.match(
    unreadable.stderr,
    /Cannot parse lock: sha256 of tool "\S+" for linux\/amd64 must be 64 lower-case hex digits/,
  );
});

test("archives: Windows drive and UNC entry names are refused on every platform, and so is an archive without its executable", async () => {
  for (const [name, entry] of [
    ["winpath", "C:\\Windows\\System32\\evil"],
    ["unc", "\\\\server\\share\\evil"],
    ["nobin", undefined],
  ] as const) {
    host.addRepo(`acme/${name}`);
    const content = "#!/bin/sh\necho evil\n";
    await publishBlockTool(host, name, "1.0.0", {
      data: writeTar(
        entry === undefined
          ? [{ name: "README.md", content: "docs\n", mode: 0o644 }]
          : [
              { name, content, mode: 0o755 },
              { name: entry, content, mode: 0o755 },
            ],
      ),
    });
    const p = await locked(`${PLATFORM}${blockTool(name, "1")}`);
    const r = await p.run("sync");
    assert.equal(r.code, 1, r.stdout);
    if (entry === undefined)
      assert.match(r.stderr, /Cannot install "nobin" 1\.0\.0: the artifact has no executable "nobin"/);
    else
      assert.ok(
        r.stderr.includes(`Cannot unpack "${name}" 1.0.0`) &&
          r.stderr.includes(`entry "${entry}" has an absolute path`),
        r.stderr,
      );
    assert.deepEqual(await readdir(join(p.home, "tools", name)).catch(() => []), [], "nothing installed");
  }
});

test("exec before sync refuses without downloading; sync refuses a tool toolmgr.toml no longer declares; a command found nowhere is 127", async () => {
  const p = await locked(KIT);
  const downloads = host.count("web:");
  const early = await p.run("exec", "plain");
  assert.equal(early.code, 1);
  assert.match(early.stderr, /^toolmgr: "kit" 2\.0\.0 is not installed; run `toolmgr sync`\n$/);
  assert.equal(host.count("web:"), downloads, "exec never downloads");
  assert.equal((await p.run("sync")).code, 0);
  const nowhere = await p.run("exec", "no-such-tool", "--flag");
  assert.equal(nowhere.code, 127);
  assert.match(nowhere.stderr, /cannot run "no-such-tool": not found on PATH/);

  await writeFile(join(p.dir, "toolmgr.toml"), `${PLATFORM}${blockTool("plain", "1")}`);
  const removed = await p.run("sync");
  assert.equal(removed.code, 1);
  assert.match(removed.stderr, /out of date:\n {2}kit: no longer in toolmgr\.toml; run `toolmgr lock`\n/);
});

test("SIGTERM reaches the child, which shuts down and sets toolmgr's exit status", async () => {
  const p = await locked(KIT);
  assert.equal((await p.run("sync")).code, 0);
  const child = spawn(
    process.execPath,
    [
      TOOLMGR_BIN,
      "exec",
      "sh",
      "-c",
      'trap "echo stopping; exit 7" TERM; echo ready; while :; do sleep 0.05; done',
    ],
    {
      cwd: p.dir,
      env: {
        ...process.env,
        TOOLMGR_HOME: p.home,
        PATH: "/usr/bin:/bin",
        XDG_CONFIG_HOME: join(p.dir, "config"),
      },
      detached: true,
    },
  );
  let stdout = "";
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // "ready", or the end of toolmgr: either way the wait is over (it never outlasts the deadline below).
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("ready")) resolve();
    });
    void closed.then(() => resolve());
  });
  // toolmgr runs in a process group of its own, so whatever happens the group (the shell too) is ended afterwards.
  const endGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  const deadline = setTimeout(endGroup, 10_000);
  try {
    await ready;
    child.kill("SIGTERM");
    assert.equal(await closed, 7, stdout);
    assert.match(stdout, /stopping/);
  } finally {
    clearTimeout(deadline);
    endGroup();
  }
});
