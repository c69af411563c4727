import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { FakeCodeHost, type FakeRelease, sha256 } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";

let host: FakeCodeHost;

function release(
  name: string,
  version: string,
  options: Partial<FakeRelease> & { digest?: boolean } = {},
): FakeRelease {
  return {
    tag: options.tag ?? `v${version}`,
    ...(options.draft ? { draft: true } : {}),
    ...(options.prerelease ? { prerelease: true } : {}),
    assets: options.assets ?? [
      {
        name: `${name}-${version}-linux-amd64.tar.gz`,
        data: Buffer.from(`${name} ${version} linux`),
        digest: options.digest ?? true,
      },
      {
        name: `${name}-${version}-darwin-arm64.tar.gz`,
        data: Buffer.from(`${name} ${version} mac`),
        digest: options.digest ?? true,
      },
    ],
  };
}

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/hello");
  for (const v of ["1.1.9", "1.2.0", "1.2.3", "1.20.0", "2.0.0"])
    host.addRelease("acme/hello", release("hello", v));
  host.addRelease("acme/hello", release("hello", "1.2.4", { prerelease: true }));
  host.addRelease("acme/hello", release("hello", "1.2.5", { draft: true }));
  host.setTag("acme/hello", "v1.2.6"); // a tag without a release
  host.addRelease("acme/hello", release("hello", "1.2.7-rc.1", { prerelease: true }));
  host.addRepo("acme/tofu");
  host.addRelease("acme/tofu", release("tofu", "0.3.0", { digest: false }));
});

after(async () => {
  await host.close();
});

test("lock resolves a prefix on whole components, newest first, skipping pre-releases, drafts and tags without a release", async () => {
  const p = await makeProject(
    host,
    `platforms = ["linux/amd64", "darwin/arm64"]\n${localTool("hello", { version: "1.2", repo: "acme/hello" })}`,
  );
  const downloadsBefore = host.count("storage:");
  const r = await p.run(["lock"]);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "hello  locked 1.2.3\nwrote toolmgr.lock\n");
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  const tool = lock.tools[0];
  assert.equal(tool?.version, "1.2.3");
  assert.equal(tool?.constraint, "1.2");
  assert.match(tool?.source ?? "", /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(
    tool?.artifacts.map((a) => [a.platform, a.url, a.sha256, a.apiUrl]),
    [
      [
        "darwin/arm64",
        host.browserUrl("acme/hello", "v1.2.3", "hello-1.2.3-darwin-arm64.tar.gz"),
        sha256(Buffer.from("hello 1.2.3 mac")),
        undefined,
      ],
      [
        "linux/amd64",
        host.browserUrl("acme/hello", "v1.2.3", "hello-1.2.3-linux-amd64.tar.gz"),
        sha256(Buffer.from("hello 1.2.3 linux")),
        undefined,
      ],
    ],
  );
  assert.equal(
    host.count("storage:"),
    downloadsBefore,
    "host digests are used without downloading (checksum rule 1)",
  );
});

test("lock of a major prefix takes the newest stable release under it", async () => {
  const p = await makeProject(host, localTool("hello", { version: "1", repo: "acme/hello" }));
  assert.equal((await p.run(["lock"])).stdout, "hello  locked 1.20.0\nwrote toolmgr.lock\n");
});

test("lock of an exact pre-release pins that pre-release only; a prefix never selects one", async () => {
  const p = await makeProject(host, localTool("hello", { version: "1.2.7-rc.1", repo: "acme/hello" }));
  const r = await p.run(["lock"]);
  assert.equal(r.stdout, "hello  locked 1.2.7-rc.1\nwrote toolmgr.lock\n");
  const flagged = await makeProject(host, localTool("hello", { version: "1.2.4", repo: "acme/hello" }));
  const f = await flagged.run(["lock"]);
  assert.equal(f.code, 1, "a release flagged pre-release is skipped by a prefix, even a full triple");
  assert.match(f.stderr, /no published stable release of "acme\/hello" matches/);
  const draft = await makeProject(host, localTool("hello", { version: "1.2.5", repo: "acme/hello" }));
  assert.equal((await draft.run(["lock"])).code, 1, "a draft is never selected");
});

test("lock downloads an artifact without a host digest once, caches it, and never fetches it again", async () => {
  const p = await makeProject(host, localTool("tofu", { version: "0.3", repo: "acme/tofu" }));
  const before = host.count("storage:");
  assert.equal((await p.run(["lock"])).code, 0);
  assert.equal(host.count("storage:"), before + 1, "one download for linux/amd64 (trust on first use)");
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  const digest = sha256(Buffer.from("tofu 0.3.0 linux"));
  assert.equal(lock.tools[0]?.artifacts[0]?.sha256, digest);
  assert.deepEqual(
    await readdir(join(p.home, "cache", "sha256")),
    [digest],
    "the download is kept in the store for sync",
  );
  const mtime = (await stat(join(p.dir, "toolmgr.lock"))).mtimeMs;
  const again = await p.run(["lock"]);
  assert.equal(again.stdout, "tofu  0.3.0\ntoolmgr.lock is up to date\n");
  assert.equal(
    host.count("storage:"),
    before + 1,
    "re-locking an unchanged URL reuses the recorded digest (rule 4)",
  );
  assert.equal(
    (await stat(join(p.dir, "toolmgr.lock"))).mtimeMs,
    mtime,
    "an up-to-date lock is not rewritten",
  );
});

test("lock is deterministic: the same inputs give a byte-identical file", async () => {
  const toml = `platforms = ["darwin/arm64", "linux/amd64"]\n${localTool("hello", { version: "1.2", repo: "acme/hello" })}`;
  const a = await makeProject(host, toml);
  const b = await makeProject(host, toml);
  await a.run(["lock"]);
  await b.run(["lock"]);
  assert.equal(
    await readFile(join(a.dir, "toolmgr.lock"), "utf8"),
    await readFile(join(b.dir, "toolmgr.lock"), "utf8"),
  );
});

test("lock fails without touching the old lock when a platform is unsupported", async () => {
  const p = await makeProject(host, localTool("hello", { version: "1.2", repo: "acme/hello" }));
  await p.run(["lock"]);
  const old = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  await p.write(
    `platforms = ["linux/amd64", "windows/amd64"]\n${localTool("hello", { version: "1.2", repo: "acme/hello" })}`,
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Cannot lock "hello" for windows\/amd64: acme\/hello@v1\.2\.3 is not published for it/,
  );
  assert.equal(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), old);
});

test("lock refuses a release that lacks the platform's asset, naming tool, platform and release", async () => {
  host.addRepo("acme/partial");
  host.addRelease(
    "acme/partial",
    release("partial", "1.0.0", {
      assets: [{ name: "partial-1.0.0-linux-amd64.tar.gz", data: Buffer.from("p") }],
    }),
  );
  const p = await makeProject(
    host,
    `platforms = ["linux/amd64", "darwin/arm64"]\n${localTool("partial", { version: "1", repo: "acme/partial" })}`,
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Cannot lock "partial" for darwin\/arm64: the release acme\/partial@v1\.0\.0 has no asset "partial-1\.0\.0-darwin-arm64\.tar\.gz"/,
  );
});

test("lock pins a channel through the commit its moving tag points at, and refuses a moved tag without a release", async () => {
  host.addRepo("acme/night");
  const first = host.setTag("acme/night", "nightly", { commit: "first build" });
  host.addRelease("acme/night", {
    tag: `nightly-${first}`,
    prerelease: true, // a pre-release flag is no objection for channel forms (rule 4)
    assets: [{ name: "night-nightly-linux-amd64.tar.gz", data: Buffer.from("night 1") }],
  });
  const p = await makeProject(host, localTool("night", { version: "nightly", repo: "acme/night" }));
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `night  locked nightly-${first}\nwrote toolmgr.lock\n`);
  const old = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  host.setTag("acme/night", "nightly", { commit: "second build" }); // moved, no release yet
  const moved = await p.run(["lock"]);
  assert.equal(moved.code, 1);
  assert.match(
    moved.stderr,
    /the tag "nightly" moved to [0-9a-f]{12} but no release "nightly-[0-9a-f]{40}" is published/,
  );
  assert.equal(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), old, "the lock is left untouched");

  const pinned = await makeProject(
    host,
    localTool("night", { version: `nightly-${first}`, repo: "acme/night" }),
  );
  assert.equal((await pinned.run(["lock"])).code, 0);
  const again = await pinned.run(["lock"]);
  assert.equal(
    again.stdout,
    `night  nightly-${first}\ntoolmgr.lock is up to date\n`,
    "a <channel>-<commit> pin is written back unchanged",
  );
});

test("lock refuses a channel the source does not declare", async () => {
  const p = await makeProject(host, localTool("hello", { version: "beta", repo: "acme/hello" }));
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /declares no channel "beta" \(channels: nightly\)/);
});

test("a channel named like an Object.prototype property is a channel the source does not declare", async () => {
  // Found by test/cli-fuzz.test.ts: `constructor` found Object.prototype's, and lock stopped with a TypeError.
  for (const channel of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
    const p = await makeProject(host, localTool("hello", { version: channel, repo: "acme/hello" }));
    for (const args of [["lock"], ["lock", "--check"]]) {
      const r = await p.run(args);
      assert.equal(r.code, 1, `${channel}: ${args.join(" ")}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `^toolmgr: Cannot resolve "hello@${channel}": the source declares no channel "${channel}" \\(channels: nightly\\)\n$`,
        ),
      );
    }
  }
});

test("lock records api_url for a private repository only, and the token never reaches another origin", async () => {
  host.addRepo("acme/secret", { private: true });
  host.addRelease("acme/secret", release("secret", "1.0.0", { digest: false }));
  const p = await makeProject(
    host,
    localTool("secret", { version: "1", repo: "acme/secret" }) +
      localTool("hello", { version: "1.2", repo: "acme/hello" }),
  );
  const r = await p.run(["lock"], { CODEHOST_TOKEN: host.token });
  assert.equal(r.code, 0, r.stderr);
  const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  const lock = parseLockfile(text);
  assert.match(
    lock.tools.find((t) => t.name === "secret")?.artifacts[0]?.apiUrl ?? "",
    /\/repos\/acme\/secret\/releases\/assets\/\d+$/,
  );
  assert.equal(
    lock.tools.find((t) => t.name === "hello")?.artifacts[0]?.apiUrl,
    undefined,
    "public: no api_url even with a token",
  );
  assert.deepEqual(host.tokenLeaks, []);
  assert.doesNotMatch(text + r.stdout + r.stderr, new RegExp(host.token));
});

test("lock <tool> re-resolves only the named tool and keeps every other pin", async () => {
  host.addRepo("acme/a");
  host.addRepo("acme/b");
  host.addRelease("acme/a", release("a", "1.0.0"));
  host.addRelease("acme/b", release("b", "1.0.0"));
  const toml =
    localTool("a", { version: "1", repo: "acme/a" }) + localTool("b", { version: "1", repo: "acme/b" });
  const p = await makeProject(host, toml);
  await p.run(["lock"]);
  host.addRelease("acme/a", release("a", "1.1.0"));
  host.addRelease("acme/b", release("b", "1.1.0"));
  const r = await p.run(["lock", "b"]);
  assert.equal(r.stdout, "a  1.0.0\nb  1.0.0 -> 1.1.0\nwrote toolmgr.lock\n");
  const unknown = await p.run(["lock", "zzz"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Cannot lock "zzz": it is not in /);
});

test("lock --check writes and downloads nothing: exit 0 when current, 3 when it would change", async () => {
  host.addRepo("acme/c");
  host.addRelease("acme/c", release("c", "1.0.0", { digest: false }));
  const p = await makeProject(host, localTool("c", { version: "1", repo: "acme/c" }));
  const missing = await p.run(["lock", "--check"]);
  assert.equal(missing.code, 3);
  await assert.rejects(stat(join(p.dir, "toolmgr.lock")), "no lock was written");
  await p.run(["lock"]);
  const downloads = host.count("storage:");
  assert.equal((await p.run(["lock", "--check"])).code, 0);
  host.addRelease("acme/c", release("c", "1.0.1", { digest: false }));
  const changed = await p.run(["lock", "--check"]);
  assert.equal(changed.code, 3);
  assert.match(changed.stdout, /^c {2}1\.0\.0 -> 1\.0\.1$/m);
  assert.equal(host.count("storage:"), downloads, "--check downloads nothing");
});

test("lock keeps the platforms an existing lock covers when toolmgr.toml lists none", async () => {
  const p = await makeProject(
    host,
    `platforms = ["darwin/arm64"]\n${localTool("hello", { version: "1.2", repo: "acme/hello" })}`,
  );
  await p.run(["lock"]);
  await p.write(localTool("hello", { version: "1.2", repo: "acme/hello" }));
  await p.run(["lock"]);
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  assert.deepEqual(
    lock.tools[0]?.artifacts.map((a) => a.platform),
    ["darwin/arm64", "linux/amd64"],
  );
});

test("lock reports two tools providing the same command as a conflict", async () => {
  const p = await makeProject(
    host,
    localTool("hello", { version: "1.2", repo: "acme/hello" }) +
      localTool("tofu", { version: "0.3", repo: "acme/tofu" }).replace('bin = ["tofu"]', 'bin = ["hello"]'),
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the command "hello" is provided by both "hello" and "tofu"/);
});

test("lock waits out a short rate limit, retries 5xx, and explains a long rate limit", async () => {
  host.addRepo("acme/flaky");
  host.addRelease("acme/flaky", release("flaky", "1.0.0"));
  host.failNext("/repos/acme/flaky/git/matching-refs", { status: 502 });
  host.failNext("/repos/acme/flaky/releases", { status: 429, headers: { "retry-after": "0" } });
  const p = await makeProject(host, localTool("flaky", { version: "1", repo: "acme/flaky" }));
  const ok = await p.run(["lock"]);
  assert.equal(ok.code, 0, ok.stderr);
  host.failNext("/repos/acme/flaky/git/matching-refs", {
    status: 403,
    headers: {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
    },
    count: 5,
  });
  const limited = await makeProject(host, localTool("flaky", { version: "1", repo: "acme/flaky" }));
  const r = await limited.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /rate limit is exhausted\. It resets at .*Set CODEHOST_TOKEN/);
});

test("lock refuses an http source whose host is not in the host policy", async () => {
  const p = await makeProject(
    host,
    `[tools.vendor]\nversion = "1"\n[tools.vendor.source]\ntype = "http"\nrepo = "acme/hello"\nurl = "https://downloads.example.org/vendor-{version}.tar.gz"\nbin = ["vendor"]\n`,
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /"downloads\.example\.org" is not in the host policy for "acme\/hello"/);
});

test("lock refuses an http source whose URL carries credentials, without printing them or downloading", async () => {
  const p = await makeProject(
    host,
    `[tools.vendor]\nversion = "1"\n[tools.vendor.source]\ntype = "http"\nrepo = "acme/hello"\nurl = "http://ci:t0ken-123@127.0.0.1:9/vendor-{version}.tar.gz"\nbin = ["vendor"]\n`,
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /the download URL of "http:\/\/\*\*\*@127\.0\.0\.1:9\/vendor-1\.\d+\.\d+\.tar\.gz" .* a URL with credentials; a lock records only https URLs without credentials/,
  );
  assert.doesNotMatch(r.stderr, /t0ken/);
  await assert.rejects(readFile(join(p.dir, "toolmgr.lock")), { code: "ENOENT" });
});

test("lock explains a missing toolmgr.toml and an unknown registry tool", async () => {
  const p = await makeProject(host, `[tools]\nnot-a-tool = "1"\n`);
  const r = await p.run(["lock"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cannot resolve "not-a-tool": it is not in the registry/);
});
