import assert from "node:assert/strict";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { FakeCodeHost, type FakeRelease } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;

function release(name: string, version: string): FakeRelease {
  return {
    tag: `v${version}`,
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `${name}-${version}-${p}.tar.gz`,
      data: Buffer.from(`${name} ${version} ${p}`),
    })),
  };
}

before(async () => {
  host = await FakeCodeHost.start();
  for (const name of ["one", "two"]) {
    host.addRepo(`acme/${name}`);
    host.addRelease(`acme/${name}`, release(name, "1.0.0"));
  }
});

after(async () => {
  await host.close();
});

test("the built CLI locks from a subdirectory, checks, and maps failures to exit codes 1, 2 and 3", async () => {
  const dir = await tempDir("toolmgr-cli-");
  const home = await tempDir("toolmgr-cli-home-");
  const sub = join(dir, "src", "deep");
  await mkdir(sub, { recursive: true });
  const toml = `platforms = ["linux/amd64", "darwin/arm64"]\n${localTool("one", { version: "1", repo: "acme/one" })}`;
  await writeFile(join(dir, "toolmgr.toml"), toml);
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
  const run = (...args: string[]) => runCli(args, { cwd: sub, env });

  const missing = await run("lock", "--check");
  assert.equal(missing.code, 3, missing.stderr);
  assert.equal(missing.stdout, "one  missing 1.0.0\n");
  await assert.rejects(stat(join(dir, "toolmgr.lock")), "--check wrote nothing");

  const locked = await run("lock");
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(locked.stdout, "one  locked 1.0.0\nwrote toolmgr.lock\n");
  const lock = parseLockfile(await readFile(join(dir, "toolmgr.lock"), "utf8"));
  assert.deepEqual(
    lock.tools[0]?.artifacts.map((a) => a.platform),
    ["darwin/arm64", "linux/amd64"],
  );

  const current = await run("lock", "--check");
  assert.equal(current.code, 0);
  assert.equal(current.stdout, "one  1.0.0 (up-to-date)\n");

  host.addRelease("acme/one", release("one", "1.0.1"));
  const drift = await run("lock", "--check");
  assert.equal(drift.code, 3);
  assert.equal(drift.stdout, "one  1.0.0 -> 1.0.1\n");

  const usage = await run("lock", "--frozen");
  assert.equal(usage.code, 2);
  const help = await run("lock", "--help");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--check/);

  await writeFile(join(dir, "toolmgr.toml"), toml.replace('version = "1"', 'version = ">=1"'));
  const bad = await run("lock");
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot parse the version of "one": ">=1" is not a version/);
  assert.equal(parseLockfile(await readFile(join(dir, "toolmgr.lock"), "utf8")).tools[0]?.version, "1.0.0");
});

test("lock <tool> keeps the other pins, which still gain artifacts for newly declared platforms", async () => {
  const tools =
    localTool("one", { version: "1", repo: "acme/one" }) +
    localTool("two", { version: "1", repo: "acme/two" });
  const p = await makeProject(host, `platforms = ["linux/amd64"]\n${tools}`);
  assert.equal((await p.run(["lock"])).code, 0);
  const pinnedOne = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8")).tools[0]?.version;
  await p.write(`platforms = ["linux/amd64", "darwin/arm64"]\n${tools}`);
  const check = await p.run(["lock", "--check"]);
  assert.equal(check.code, 3);
  assert.equal(
    check.stdout,
    `one  ${pinnedOne} (artifact for darwin/arm64 added)\ntwo  1.0.0 (artifact for darwin/arm64 added)\n`,
  );
  host.addRelease("acme/one", release("one", "1.9.0"));
  host.addRelease("acme/two", release("two", "1.9.0"));
  const r = await p.run(["lock", "two"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `one  ${pinnedOne}\ntwo  1.0.0 -> 1.9.0\nwrote toolmgr.lock\n`);
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  const one = lock.tools.find((t) => t.name === "one");
  assert.equal(one?.version, pinnedOne, "the kept pin did not move");
  assert.deepEqual(
    one?.artifacts.map((a) => [
      a.platform,
      a.url.endsWith(`one-${pinnedOne}-${a.platform.replace("/", "-")}.tar.gz`),
    ]),
    [
      ["darwin/arm64", true],
      ["linux/amd64", true],
    ],
  );
});

test("a token that fails is never echoed, and a private repository without one is not found", async () => {
  host.addRepo("acme/hidden", { private: true });
  host.addRelease("acme/hidden", release("hidden", "1.0.0"));
  const p = await makeProject(host, localTool("hidden", { version: "1", repo: "acme/hidden" }));
  const secret = "ghp_not-the-right-token-123456";
  const r = await p.run(["lock"], { CODEHOST_TOKEN: secret });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Cannot find the repository "acme\/hidden" on the code host: .*set CODEHOST_TOKEN if it is private/,
  );
  assert.ok(!(r.stdout + r.stderr).includes(secret));
});

test("commands are unique without case, within and across tools", async () => {
  const twice = await makeProject(
    host,
    localTool("one", { version: "1", repo: "acme/one" }).replace('bin = ["one"]', 'bin = ["one", "bin/ONE"]'),
  );
  const r = await twice.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cannot lock "one": it lists the command "ONE" twice \("one" and "ONE"\)/);
  const across = await makeProject(
    host,
    localTool("one", { version: "1", repo: "acme/one" }) +
      localTool("two", { version: "1", repo: "acme/two" }).replace('bin = ["two"]', 'bin = ["One"]'),
  );
  const a = await across.run(["lock"]);
  assert.equal(a.code, 1);
  assert.match(a.stderr, /the command "One" is provided by both "one" and "two"/);
});

test("a lock that cannot be written is reported as such, and nothing is left behind", async () => {
  const p = await makeProject(host, localTool("two", { version: "1", repo: "acme/two" }));
  await mkdir(join(p.dir, "toolmgr.lock"));
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Cannot write toolmgr\.lock in ".*": E[A-Z]+; check that the project directory is writable/,
  );
  assert.deepEqual((await readdir(p.dir)).sort(), ["toolmgr.lock", "toolmgr.toml"]);
});

test("a missing repository is reported as not found", async () => {
  const p = await makeProject(host, localTool("ghost", { version: "1", repo: "acme/ghost" }));
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cannot find the repository "acme\/ghost" on the code host/);
});

test("the peer's source defaults hold through the CLI: tag prefix v, platforms linux and darwin or the target keys", async () => {
  host.addRepo("acme/defaults");
  host.addRelease("acme/defaults", {
    tag: "v2.0.0",
    assets: ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "win64"].map((p) => ({
      name: `d-2.0.0-${p}.zip`,
      data: Buffer.from(`d ${p}`),
    })),
  });
  const source = (extra: string) => `[tools.d]
version = "2"
[tools.d.source]
type = "github_release"
repo = "acme/defaults"
asset = "d-{version}-${extra.includes("target") ? "{target}" : "{os}-{arch}"}.zip"
bin = ["d"]
${extra}`;
  const dir = await tempDir("toolmgr-defaults-");
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: join(dir, ".home"), CODEHOST_TOKEN: "" };
  const all = '["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"]';
  await writeFile(join(dir, "toolmgr.toml"), `platforms = ${all}\n${source("")}`);
  const locked = await runCli(["lock"], { cwd: dir, env });
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(
    locked.stdout,
    "d  locked 2.0.0\nwrote toolmgr.lock\n",
    "tags v2.0.0 found with the default prefix",
  );
  const lock = parseLockfile(await readFile(join(dir, "toolmgr.lock"), "utf8"));
  assert.deepEqual(
    lock.tools[0]?.artifacts.map((a) => a.platform),
    ["darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"],
  );
  assert.equal(lock.tools[0]?.stripComponents, 0);

  await writeFile(join(dir, "toolmgr.toml"), `platforms = ["windows/amd64"]\n${source("")}`);
  const windows = await runCli(["lock"], { cwd: dir, env });
  assert.equal(windows.code, 1);
  assert.match(
    windows.stderr,
    /Cannot lock "d" for windows\/amd64: acme\/defaults@v2\.0\.0 is not published for it \(supported: linux\/amd64, linux\/arm64, darwin\/amd64, darwin\/arm64\)/,
  );

  const target = '[tools.d.source.target]\n"windows/amd64" = "win64"\n';
  await writeFile(join(dir, "toolmgr.toml"), `platforms = ["windows/amd64"]\n${source(target)}`);
  const byTarget = await runCli(["lock"], { cwd: dir, env });
  assert.equal(byTarget.code, 0, byTarget.stderr);
  await writeFile(join(dir, "toolmgr.toml"), `platforms = ["linux/amd64"]\n${source(target)}`);
  const notInTarget = await runCli(["lock"], { cwd: dir, env });
  assert.equal(notInTarget.code, 1);
  assert.match(
    notInTarget.stderr,
    /for linux\/amd64: .* is not published for it \(supported: windows\/amd64\)/,
  );
});

test("a tag without a published release (or a draft one) is refused, naming tool and repository; no lock is written", async () => {
  host.addRepo("acme/tagonly");
  host.setTag("acme/tagonly", "v2.0.0");
  host.addRepo("acme/drafty");
  host.addRelease("acme/drafty", { ...release("drafty", "3.0.0"), draft: true });
  for (const [name, version] of [
    ["tagonly", "2.0.0"],
    ["drafty", "3.0.0"],
  ] as const) {
    const p = await makeProject(host, localTool(name, { version, repo: `acme/${name}` }));
    const r = await p.run(["lock"]);
    assert.equal(r.code, 1, r.stderr);
    // Neither a bare tag nor a draft release publishes assets: the answer names the tool, the repository and the fix.
    assert.match(
      r.stderr,
      new RegExp(
        `^toolmgr: Cannot resolve "${name}@${version.replaceAll(".", "\\.")}": .*"acme/${name}".*check the version`,
      ),
    );
    assert.equal(await stat(join(p.dir, "toolmgr.lock")).catch(() => undefined), undefined);
  }
});

test("lock with a store it cannot write: host digests lock without it; a needed download fails naming the store", async () => {
  const dir = await tempDir("toolmgr-cli-");
  // A store path under a regular file cannot be created, even by root (ENOTDIR), as a read-only store cannot.
  await writeFile(join(dir, "not-a-dir"), "");
  const env = {
    CODEHOST_API_URL: host.apiUrl,
    TOOLMGR_HOME: join(dir, "not-a-dir", "store"),
    CODEHOST_TOKEN: "",
  };
  await writeFile(
    join(dir, "toolmgr.toml"),
    `platforms = ["linux/amd64"]\n${localTool("one", { version: "1.0.0", repo: "acme/one" })}`,
  );
  const locked = await runCli(["lock"], { cwd: dir, env });
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(locked.stdout, "one  locked 1.0.0\nwrote toolmgr.lock\n");

  host.addRepo("acme/undigested");
  host.addRelease("acme/undigested", {
    tag: "v1.0.0",
    assets: [{ name: "undigested-1.0.0-linux-amd64.tar.gz", data: Buffer.from("u"), digest: false }],
  });
  const before = await readFile(join(dir, "toolmgr.lock"), "utf8");
  await writeFile(
    join(dir, "toolmgr.toml"),
    `platforms = ["linux/amd64"]\n${localTool("undigested", { version: "1", repo: "acme/undigested" })}`,
  );
  const refused = await runCli(["lock"], { cwd: dir, env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot use the store ".*not-a-dir\/store": ENOTDIR on /);
  assert.equal(
    await readFile(join(dir, "toolmgr.lock"), "utf8"),
    before,
    "a failed lock leaves the old lock",
  );
});
