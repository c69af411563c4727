import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// Cases of nao1215/block's table-driven source tests (internal/recipe/recipe_test.go TestSourceValidate,
// TestValidateRefusesRepoCharactersGitHubDoesNotUse) that no end-to-end scenario of block covers, run through our
// CLI: a project-local source that names no repository or no release asset is refused from toolmgr.toml alone,
// before any request, and writes no lock.

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

async function refused(toml: string, message: RegExp): Promise<void> {
  const p = await blockProject(host, toml);
  const requests = host.count("/");
  const r = await p.run("lock");
  assert.equal(r.code, 1, `${toml}\n${r.stdout}`);
  assert.match(r.stderr, message);
  assert.equal(host.count("/"), requests, "no request was made");
  await assert.rejects(readFile(join(p.dir, "toolmgr.lock")), "no lock written");
}

test('a repo whose owner or name is "." or ".." is refused before any request', async () => {
  for (const repo of ["./hello", "acme/.", "../hello", "acme/.."]) {
    await refused(
      HELLO.replace('repo = "acme/hello"', `repo = "${repo}"`),
      /"repo" must look like "owner\/name"/,
    );
  }
  // Dots inside a name are GitHub's own spelling and stay accepted.
  const p = await blockProject(host, HELLO.replace('repo = "acme/hello"', 'repo = "acme/hello.js"'));
  const r = await p.run("lock");
  assert.match(r.stderr, /Cannot find the repository "acme\/hello\.js"/);
});

test("an asset template with a \"/\" (the version's or a channel's) is refused: a release asset is a file name", async () => {
  await refused(
    HELLO.replace(
      'asset = "hello_{version}_{os}_{arch}.tar.gz"',
      'asset = "dist/hello_{version}_{os}_{arch}.tar.gz"',
    ),
    /"asset": "dist\/hello_\{version\}_\{os\}_\{arch\}\.tar\.gz" is not a file name; a release asset is named without "\/"/,
  );
  await refused(
    `${HELLO}[tools.hello.source.channels.nightly]\nasset = "nightly/hello_{os}_{arch}.tar.gz"\n`,
    /channel "nightly": "nightly\/hello_\{os\}_\{arch\}\.tar\.gz" is not a file name/,
  );
});

test("an http source whose URL names no release ({version} or {commit}) is refused: its contents would change", async () => {
  const http = (url: string) => `platforms = ["linux/amd64"]
[tools.vendor]
version = "1.2"
[tools.vendor.source]
type = "http"
repo = "acme/hello"
url = "${url}"
bin = ["hello"]
`;
  await refused(
    http("http://127.0.0.1:9/downloads/hello-latest-{os}-{arch}.tar.gz"),
    /"url": "http:\/\/127\.0\.0\.1:9\/downloads\/hello-latest-\{os\}-\{arch\}\.tar\.gz" names no release; an http URL must contain \{version\} \(or \{commit\}\)/,
  );
  // With {version} it goes on to the code host (and the refusal, if any, is another one).
  const p = await blockProject(host, http("http://127.0.0.1:9/downloads/hello-{version}-{os}-{arch}.tar.gz"));
  const r = await p.run("lock");
  assert.doesNotMatch(r.stderr, /names no release/);
  assert.ok(host.count("/repos/acme/hello/") > 0, "the tags were asked for");
});
