import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";
import { LoopbackProxy } from "./support/loopback-proxy.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";
import { TEST_CA, TlsFront } from "./support/tls-front.js";

let host: FakeCodeHost;
let proxy: LoopbackProxy;
let front: TlsFront;

async function release(name: string, version: string, digest = true) {
  const data = await buildArtifact("tar.gz", { name, version });
  return {
    tag: `v${version}`,
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `${name}-${version}-${p}.tar.gz`,
      data,
      digest,
    })),
  };
}

before(async () => {
  host = await FakeCodeHost.start();
  proxy = await LoopbackProxy.start();
  front = await TlsFront.start(host.apiUrl);
  host.addRepo("acme/secret", { private: true });
  host.addRelease("acme/secret", await release("secret", "1.0.0", false));
  host.addRepo("acme/hello");
  host.addRelease("acme/hello", await release("hello", "1.2.0", false));
});

after(async () => {
  await Promise.all([host.close(), proxy.close(), front.close()]);
});

/** Environment of a CLI run with no token and no proxy from the machine running the tests. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [
    "CODEHOST_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
  ]) {
    env[name] = "";
    env[name.toLowerCase()] = "";
  }
  return { ...env, ...extra };
}

for (const variable of ["GH_TOKEN", "GITHUB_TOKEN"]) {
  test(`${variable} is used like CODEHOST_TOKEN: sent to the API only, private artifacts lock and sync`, async () => {
    const p = await makeProject(host, localTool("secret", { version: "1", repo: "acme/secret" }));
    const seen = host.apiAuthorizations.length;
    const r = await p.run(["lock"], { [variable]: host.token });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(host.apiAuthorizations.length > seen, "the token went to the API");
    const s = await p.run(["sync"], { [variable]: host.token });
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual(host.tokenLeaks, [], "never to storage or the web origin");
    const lock = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
    assert.doesNotMatch(lock + r.stdout + r.stderr + s.stdout + s.stderr, new RegExp(host.token));
  });
}

test("only the first token set is sent, never retried with the next (CODEHOST_TOKEN > GH_TOKEN > GITHUB_TOKEN)", async () => {
  const p = await makeProject(host, localTool("secret", { version: "1", repo: "acme/secret" }));
  const seen = host.apiAuthorizations.length;
  const r = await p.run(["lock"], { GH_TOKEN: "wrong-gh-token", GITHUB_TOKEN: host.token });
  assert.equal(r.code, 1, "the right token in GITHUB_TOKEN is not tried after GH_TOKEN");
  assert.match(r.stderr, /Cannot find the repository "acme\/secret"/);
  const sent = new Set(host.apiAuthorizations.slice(seen));
  assert.deepEqual([...sent], ["Bearer wrong-gh-token"]);
  const first = await p.run(["lock"], { CODEHOST_TOKEN: host.token, GH_TOKEN: "wrong-gh-token" });
  assert.equal(first.code, 0, first.stderr);
});

test("a rate limit met without a token ends lock with one note naming the token variables; none with a token", async () => {
  const p = await makeProject(host, localTool("hello", { version: "1.2.0", repo: "acme/hello" }));
  host.failNext("/repos/acme/hello/releases/tags/", { status: 403, headers: { "retry-after": "0" } });
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.match(/note:/g)?.length, 1);
  assert.match(r.stderr, /rate-limited .*set CODEHOST_TOKEN \(or GH_TOKEN, GITHUB_TOKEN\)/);
  const q = await makeProject(host, localTool("hello", { version: "1.2.0", repo: "acme/hello" }));
  host.failNext("/repos/acme/hello/releases/tags/", { status: 403, headers: { "retry-after": "0" } });
  const withToken = await q.run(["lock"], { GH_TOKEN: host.token });
  assert.equal(withToken.code, 0, withToken.stderr);
  assert.doesNotMatch(withToken.stderr, /note:/);
});

test("an invalid CODEHOST_API_URL is an error naming the variable, not a stack trace", async () => {
  const p = await makeProject(host, localTool("hello", { version: "1", repo: "acme/hello" }));
  const r = await p.run(["lock"], { CODEHOST_API_URL: "api.github.com" });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^toolmgr: Cannot use CODEHOST_API_URL="api\.github\.com": it is not an http\(s\) URL/,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

/** A project dir for the built CLI, its store, and the environment that points it at the TLS front of the host. */
async function cliProject(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir("toolmgr-proxy-");
  await writeFile(join(dir, "toolmgr.toml"), localTool("hello", { version: "1", repo: "acme/hello" }));
  const home = await tempDir("toolmgr-proxy-home-");
  return {
    dir,
    env: cleanEnv({ CODEHOST_API_URL: front.url, TOOLMGR_HOME: home, NODE_EXTRA_CA_CERTS: TEST_CA }),
  };
}

test("HTTPS_PROXY tunnels API calls with CONNECT, HTTP_PROXY carries plain downloads; the token stays off downloads", async () => {
  const { dir, env } = await cliProject();
  const tunnels = proxy.tunnels.length;
  const forwarded = proxy.forwarded.length;
  const r = await runCli(["lock"], {
    cwd: dir,
    env: { ...env, https_proxy: proxy.url, HTTP_PROXY: proxy.url, GH_TOKEN: "a-token-for-the-api-only" },
  });
  assert.equal(r.code, 0, r.stderr);
  const port = new URL(front.url).port;
  assert.ok(
    proxy.tunnels.slice(tunnels).includes(`localhost:${port}`),
    "the API went through a CONNECT tunnel",
  );
  assert.ok(
    proxy.forwarded.slice(forwarded).some((u) => u.includes("/releases/download/")),
    "the trust-on-first-use download went through the proxy",
  );
  assert.deepEqual(proxy.authorizations, [], "no token on a download through the proxy");
  const lock = parseLockfile(await readFile(join(dir, "toolmgr.lock"), "utf8"));
  assert.equal(lock.tools[0]?.version, "1.2.0");
  const s = await runCli(["sync"], {
    cwd: dir,
    env: { ...env, HTTPS_PROXY: proxy.url, http_proxy: proxy.url },
  });
  assert.equal(s.code, 0, s.stderr);
});

test("NO_PROXY lists what goes direct (host, host:port, CIDR, *); nothing else bypasses the proxy, not even loopback", async () => {
  const dead = await deadPort();
  for (const noProxy of ["localhost,127.0.0.1", "localhost:1,127.0.0.0/8,.localhost", "*"]) {
    const { dir, env } = await cliProject();
    const r = await runCli(["lock"], {
      cwd: dir,
      env: {
        ...env,
        HTTPS_PROXY: `http://127.0.0.1:${dead}`,
        HTTP_PROXY: `http://127.0.0.1:${dead}`,
        NO_PROXY: noProxy,
      },
    });
    assert.equal(r.code, 0, `${noProxy}: ${r.stderr}`);
  }
  const { dir, env } = await cliProject();
  const partly = await runCli(["lock"], {
    cwd: dir,
    env: { ...env, HTTPS_PROXY: `http://127.0.0.1:${dead}`, no_proxy: "localhost:1,example.com" },
  });
  assert.equal(partly.code, 1, "localhost on another port is not exempt");
  assert.match(partly.stderr, new RegExp(`the proxy 127\\.0\\.0\\.1:${dead} \\(from HTTPS_PROXY\\)`));
});

test("an unreachable proxy is exit 1 with a message naming the proxy's host:port; a malformed proxy URL names the variable", async () => {
  const dead = await deadPort();
  const { dir, env } = await cliProject();
  const r = await runCli(["lock"], { cwd: dir, env: { ...env, HTTPS_PROXY: `127.0.0.1:${dead}` } });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `^toolmgr: Cannot reach the proxy 127\\.0\\.0\\.1:${dead} \\(from HTTPS_PROXY\\): ECONNREFUSED`,
    ),
  );
  const bad = await runCli(["lock"], { cwd: dir, env: { ...env, HTTPS_PROXY: "http://[bad" } });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Cannot use HTTPS_PROXY="http:\/\/\[bad": it is not an http\(s\) proxy URL/);
});

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
