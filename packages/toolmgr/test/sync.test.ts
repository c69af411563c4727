import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact, hostileTar, hostileZip } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { makeProject } from "./support/lock-harness.js";
import { runProgram, TOOLMGR_BIN } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;

function tool(
  name: string,
  options: { version: string; repo: string; asset: string; strip?: number; bin?: string },
): string {
  return `[tools.${name}]
version = "${options.version}"
[tools.${name}.source]
type = "github_release"
repo = "${options.repo}"
asset = "${options.asset}"
bin = ["${options.bin ?? name}"]
platforms = ["linux/amd64"]
strip_components = ${options.strip ?? 0}
`;
}

/** Runs a shim with the shims directory first on PATH, from `cwd`. */
function runShim(home: string, command: string, options: { cwd: string; path?: string; args?: string[] }) {
  const shims = join(home, "shims");
  return runProgram(join(shims, command), options.args ?? [], {
    cwd: options.cwd,
    env: { TOOLMGR_HOME: home, PATH: `${shims}:${options.path ?? "/usr/bin:/bin"}` },
  });
}

before(async () => {
  host = await FakeCodeHost.start();
  for (const [kind, wrap] of [
    ["tar.gz", "wrapper"],
    ["tar.bz2", undefined],
    ["tar.xz", "wrapper"],
    ["zip", undefined],
    ["raw", undefined],
  ] as const) {
    const repo = `acme/${kind.replace(".", "-")}`;
    host.addRepo(repo);
    for (const version of ["1.0.0", "2.0.0"]) {
      const data = await buildArtifact(kind, { name: "hello", version, ...(wrap ? { wrap } : {}) });
      const ext = kind === "raw" ? "" : `.${kind}`;
      host.addRelease(repo, {
        tag: `v${version}`,
        assets: [{ name: `hello-${version}-linux${ext}`, data, digest: kind !== "zip" }],
      });
    }
  }
});

after(async () => {
  await host.close();
});

for (const [kind, strip] of [
  ["tar.gz", 1],
  ["tar.bz2", 0],
  ["tar.xz", 1],
  ["zip", 0],
  ["raw", 0],
] as const) {
  test(`lock, sync and a shim run the pinned tool from a ${kind} artifact`, async () => {
    const ext = kind === "raw" ? "" : `.${kind}`;
    const p = await makeProject(
      host,
      tool("hello", {
        version: "1",
        repo: `acme/${kind.replace(".", "-")}`,
        asset: `hello-{version}-{os}${ext}`,
        strip,
      }),
    );
    assert.equal((await p.run(["lock"])).code, 0);
    const r = await p.run(["sync"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `hello  installed 1.0.0\nshims: hello\nadd to PATH: ${join(p.home, "shims")}\n`);
    const shim = await runShim(p.home, "hello", { cwd: p.dir, args: ["a b", "c"] });
    assert.equal(shim.stdout, "hello 1.0.0 a b c\n");
    const again = await p.run(["sync"]);
    assert.match(again.stdout, /^hello {2}present 1\.0\.0$/m);
  });
}

test("two projects pinning different versions each get their own from the same shim", async () => {
  const a = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/tar-gz", asset: "hello-{version}-{os}.tar.gz", strip: 1 }),
  );
  const b = await makeProject(
    host,
    tool("hello", { version: "2", repo: "acme/tar-gz", asset: "hello-{version}-{os}.tar.gz", strip: 1 }),
  );
  for (const p of [a, b]) {
    await p.run(["lock"]);
    assert.equal((await p.run(["sync"], { TOOLMGR_HOME: a.home })).code, 0);
  }
  const nested = join(b.dir, "src", "deep");
  await mkdir(nested, { recursive: true });
  assert.equal((await runShim(a.home, "hello", { cwd: a.dir })).stdout, "hello 1.0.0 \n");
  assert.equal((await runShim(a.home, "hello", { cwd: nested })).stdout, "hello 2.0.0 \n");
});

test("a shim steps aside outside a project and exits 127 when nothing else is on PATH", async () => {
  const p = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/raw", asset: "hello-{version}-{os}" }),
  );
  await p.run(["lock"]);
  await p.run(["sync"]);
  const outside = await tempDir("toolmgr-outside-");
  const other = await tempDir("toolmgr-otherbin-");
  await writeFile(join(other, "hello"), "#!/bin/sh\necho system hello\n", { mode: 0o755 });
  assert.equal(
    (await runShim(p.home, "hello", { cwd: outside, path: `${other}:/usr/bin:/bin` })).stdout,
    "system hello\n",
  );
  const none = await runShim(p.home, "hello", { cwd: outside });
  assert.equal(none.code, 127);
  assert.match(
    none.stderr,
    /hello is not pinned in any toolmgr\.lock above .*, and no other hello is on PATH/,
  );
});

test("a shim refuses a pinned tool that is not installed in exec's words, naming toolmgr sync", async () => {
  const p = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/raw", asset: "hello-{version}-{os}" }),
  );
  await p.run(["lock"]);
  await p.run(["sync"]);
  await rm(join(p.home, "tools"), { recursive: true });
  const r = await runShim(p.home, "hello", { cwd: p.dir });
  assert.equal(r.code, 1, "exit 1 as `toolmgr exec`");
  // The project is recorded (sync ran), so this is the shim's own check without Node; README "sync, shims, exec, which,
  // status in detail" asks for exec's refusal, word for word.
  assert.equal(r.stderr, 'toolmgr: "hello" 1.0.0 is not installed; run `toolmgr sync`\n');
  const viaExec = await p.run(["exec", "hello"]);
  assert.equal(viaExec.code, r.code);
  assert.equal(viaExec.stderr, r.stderr);
});

for (const damage of ["marker", "executable"] as const) {
  test(`sync replaces an install missing its ${damage}; the shim refuses it until then`, async () => {
    const p = await makeProject(
      host,
      tool("hello", { version: "1", repo: "acme/tar-gz", asset: "hello-{version}-{os}.tar.gz", strip: 1 }),
    );
    await p.run(["lock"]);
    assert.equal((await p.run(["sync"])).code, 0);
    const [install = ""] = await readdir(join(p.home, "tools", "hello"));
    await rm(join(p.home, "tools", "hello", install, damage === "marker" ? ".toolmgr-install" : "hello"));
    const refused = await runShim(p.home, "hello", { cwd: p.dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^toolmgr: "hello" 1\.0\.0 is damaged: .*; run `toolmgr sync`\n$/);
    assert.equal((await p.run(["exec", "hello"])).stderr, refused.stderr, "exec's words");
    const r = await p.run(["sync"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hello {2}installed 1\.0\.0$/m);
    assert.equal((await runShim(p.home, "hello", { cwd: p.dir })).stdout, "hello 1.0.0 \n");
  });
}

test("sync rejects a digest mismatch: nothing installed, no shim written, the message names everything", async () => {
  const p = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/raw", asset: "hello-{version}-{os}" }),
  );
  await p.run(["lock"]);
  const lockPath = join(p.dir, "toolmgr.lock");
  const text = await readFile(lockPath, "utf8");
  const wrong = "f".repeat(64);
  const actual = /sha256 = "([0-9a-f]{64})"/.exec(text)?.[1] ?? "";
  await writeFile(lockPath, text.replace(actual, wrong));
  const r = await p.run(["sync"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(`Cannot verify "hello" from .*hello-1\\.0\\.0-linux: expected sha256 ${wrong}, got ${actual}`),
  );
  await assert.rejects(stat(join(p.home, "tools")), "nothing installed");
  await assert.rejects(stat(join(p.home, "shims")), "no shims");
  assert.deepEqual(await readdir(join(p.home, "cache", "sha256")), [], "the temporary download was removed");
});

for (const kind of ["dotdot", "absolute", "symlink", "hardlink", "device", "duplicate"] as const) {
  test(`sync refuses an archive with a ${kind} entry and installs nothing`, async () => {
    const repo = `acme/hostile-${kind}`;
    host.addRepo(repo);
    host.addRelease(repo, {
      tag: "v1.0.0",
      assets: [{ name: "tool-1.0.0.tar.gz", data: await hostileTar(kind) }],
    });
    const p = await makeProject(host, tool("tool", { version: "1", repo, asset: "tool-{version}.tar.gz" }));
    await p.run(["lock"]);
    const r = await p.run(["sync"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Cannot unpack "tool" 1\.0\.0/);
    if (kind === "duplicate") assert.match(r.stderr, /entry "\.\/tool" writes "tool" a second time/);
    assert.deepEqual(await readdir(join(p.home, "tools", "tool")), [], "the temporary directory was removed");
    await assert.rejects(stat("/tmp/toolmgr-absolute-escape"));
  });
}

test("sync refuses a stale lock before touching the store", async () => {
  const p = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/raw", asset: "hello-{version}-{os}" }),
  );
  await p.run(["lock"]);
  await p.write(tool("hello", { version: "2", repo: "acme/raw", asset: "hello-{version}-{os}" }));
  const r = await p.run(["sync"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /out of date:\n {2}hello: locked for "1" but toolmgr\.toml asks for "2"; run `toolmgr lock`/,
  );
  await assert.rejects(stat(join(p.home, "cache", "sha256")), "sync downloaded nothing");
  await assert.rejects(stat(join(p.home, "tools")), "and installed nothing");
  // A lock without this platform's artifact: say which platform to add and to re-run lock.
  await p.write(tool("hello", { version: "1", repo: "acme/raw", asset: "hello-{version}-{os}" }));
  const lockPath = join(p.dir, "toolmgr.lock");
  await writeFile(
    lockPath,
    (await readFile(lockPath, "utf8")).replace('platform = "linux/amd64"', 'platform = "darwin/arm64"'),
  );
  const noPlatform = await p.run(["sync"]);
  assert.equal(noPlatform.code, 1);
  assert.match(
    noPlatform.stderr,
    /hello: the lock has no artifact for linux\/amd64; add "linux\/amd64" to platforms in toolmgr\.toml and run `toolmgr lock`/,
  );
  await assert.rejects(stat(join(p.home, "cache", "sha256")), "sync downloaded nothing");
  await assert.rejects(stat(join(p.home, "tools")), "and installed nothing");
});

for (const kind of ["dotdot", "absolute", "symlink", "duplicate"] as const) {
  test(`sync refuses a zip with a ${kind} entry and installs nothing`, async () => {
    const repo = `acme/hostile-zip-${kind}`;
    host.addRepo(repo);
    host.addRelease(repo, {
      tag: "v1.0.0",
      assets: [{ name: "tool-1.0.0.zip", data: await hostileZip(kind) }],
    });
    const p = await makeProject(host, tool("tool", { version: "1", repo, asset: "tool-{version}.zip" }));
    await p.run(["lock"]);
    const r = await p.run(["sync"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Cannot unpack "tool" 1\.0\.0/);
    if (kind === "duplicate") assert.match(r.stderr, /entry "TOOL" writes "TOOL" a second time/);
    assert.deepEqual(await readdir(join(p.home, "tools", "tool")), []);
    await assert.rejects(stat("/tmp/toolmgr-zip-absolute-escape"));
  });
}

test("sync of a private artifact needs CODEHOST_TOKEN and never sends it to the storage origin", async () => {
  host.addRepo("acme/private", { private: true });
  host.addRelease("acme/private", {
    tag: "v1.0.0",
    assets: [
      { name: "hello-1.0.0-linux", data: await buildArtifact("raw", { name: "hello", version: "1.0.0" }) },
    ],
  });
  const p = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/private", asset: "hello-{version}-{os}" }),
  );
  assert.equal((await p.run(["lock"], { CODEHOST_TOKEN: host.token })).code, 0);
  const missing = await p.run(["sync"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /private repository: set CODEHOST_TOKEN/);
  const ok = await p.run(["sync"], { CODEHOST_TOKEN: host.token });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(host.tokenLeaks, []);
});

test("sync from the cache never touches the network (the host is stopped)", async () => {
  const own = await FakeCodeHost.start();
  own.addRepo("acme/cached");
  own.addRelease("acme/cached", {
    tag: "v1.0.0",
    assets: [
      { name: "hello-1.0.0-linux", data: await buildArtifact("raw", { name: "hello", version: "1.0.0" }) },
    ],
  });
  const p = await makeProject(
    own,
    tool("hello", { version: "1", repo: "acme/cached", asset: "hello-{version}-{os}" }),
  );
  await p.run(["lock"]);
  await p.run(["sync"]);
  await own.close();
  await rm(join(p.home, "tools"), { recursive: true });
  const r = await p.run(["sync"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^hello {2}installed 1\.0\.0$/m);
});

test("two sync processes of two projects at once both succeed and leave a consistent store", async () => {
  const a = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/tar-bz2", asset: "hello-{version}-{os}.tar.bz2" }),
  );
  const b = await makeProject(
    host,
    tool("hello", { version: "1", repo: "acme/tar-bz2", asset: "hello-{version}-{os}.tar.bz2" }),
  );
  await a.run(["lock"]);
  await b.run(["lock"]);
  const home = await tempDir("toolmgr-shared-");
  const runSync = (cwd: string) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [TOOLMGR_BIN, "sync", "--quiet"], {
        cwd,
        env: { ...process.env, TOOLMGR_HOME: home, CODEHOST_API_URL: host.apiUrl },
        stdio: "ignore",
      });
      child.on("close", resolve);
    });
  const codes = await Promise.all([runSync(a.dir), runSync(b.dir), runSync(a.dir)]);
  assert.deepEqual(codes, [0, 0, 0]);
  const installs = await readdir(join(home, "tools", "hello"));
  assert.equal(installs.length, 1, `one install, no leftovers: ${installs.join(", ")}`);
  assert.equal((await runShim(home, "hello", { cwd: b.dir })).stdout, "hello 1.0.0 \n");
});
