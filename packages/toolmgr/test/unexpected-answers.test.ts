import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runCli } from "./support/run-cli.js";
import { type ScriptedServer, sendJson, startScriptedServer } from "./support/scripted-server.js";
import { tempDir } from "./support/temp-dir.js";

// A code host (or a CODEHOST_API_URL pointing somewhere else) that answers in a shape other than the GitHub API's.

const DATA = Buffer.from("odd 1.0.0 linux");

/** What the tags, release and repository endpoints answer next. */
let answers: { tags: unknown; release: unknown; repo?: unknown };
let server: ScriptedServer;

function goodAnswers(): {
  tags: unknown;
  release: Record<string, unknown> & { assets: Record<string, unknown>[] };
} {
  return {
    tags: [{ ref: "refs/tags/v1.0.0", object: { sha: "a".repeat(40), type: "commit" } }],
    release: {
      tag_name: "v1.0.0",
      draft: false,
      prerelease: false,
      assets: [
        {
          name: "odd-1.0.0-linux-amd64",
          url: `${server.url}/repos/acme/odd/releases/assets/1`,
          browser_download_url: `${server.url}/acme/odd/releases/download/v1.0.0/odd-1.0.0-linux-amd64`,
          digest: `sha256:${createHash("sha256").update(DATA).digest("hex")}`,
        },
      ],
    },
  };
}

before(async () => {
  server = await startScriptedServer((path, _req, res) => {
    if (path === "/repos/acme/odd/git/matching-refs/tags/v1") return sendJson(res, answers.tags);
    if (path === "/repos/acme/odd/releases/tags/v1.0.0") return sendJson(res, answers.release);
    if (path === "/repos/acme/odd") return sendJson(res, answers.repo ?? { private: false });
    res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
  });
});

after(async () => {
  await server.close();
});

const TOML = `platforms = ["linux/amd64"]
[tools.odd]
version = "1"
[tools.odd.source]
type = "github_release"
repo = "acme/odd"
asset = "odd-{version}-{os}-{arch}"
bin = ["odd"]
`;

/** A project locked against good answers, so each case has an existing lock to leave alone. */
async function lockedProject(token = "") {
  const dir = await tempDir("toolmgr-odd-");
  const home = await tempDir("toolmgr-odd-home-");
  await writeFile(join(dir, "toolmgr.toml"), TOML);
  const env = { CODEHOST_API_URL: server.url, TOOLMGR_HOME: home, CODEHOST_TOKEN: token };
  const run = (...args: string[]) => runCli(args, { cwd: dir, env });
  answers = goodAnswers();
  const locked = await run("lock");
  assert.equal(locked.code, 0, locked.stderr);
  const lock = await readFile(join(dir, "toolmgr.lock"));
  return { dir, run, lock };
}

for (const { label, answer, message } of [
  {
    label: "a release answer that is not JSON",
    answer: () => ({ release: "<html><body>Sign in to continue</body></html>" }),
    message: () => `Cannot read the answer of ${server.url}/repos/acme/odd/releases/tags/v1.0.0: not JSON`,
  },
  {
    label: "a release answer that is a JSON object without assets",
    answer: () => ({ release: { message: "Moved Permanently" } }),
    message: () => "Cannot read the release acme/odd@v1.0.0: unexpected answer",
  },
  {
    label: "a release answer that is a JSON list",
    answer: () => ({ release: [] }),
    message: () => "Cannot read the release acme/odd@v1.0.0: unexpected answer",
  },
  {
    label: "a tags answer that is a JSON object where a list is expected",
    answer: () => ({ tags: { ref: "refs/tags/v1.0.0", object: { sha: "a".repeat(40), type: "commit" } } }),
    message: () => 'Cannot read the tags of "acme/odd": expected a list',
  },
  {
    // Found by test/cli-fuzz.test.ts: an entry that is not an object stopped lock with a TypeError.
    label: "a release whose assets are null, a number and a string",
    answer: () => ({ release: { ...goodAnswers().release, assets: [null, 1, "odd-1.0.0-linux-amd64"] } }),
    message: () =>
      'Cannot lock "odd" for linux/amd64: the release acme/odd@v1.0.0 has no asset "odd-1.0.0-linux-amd64" (it has: no assets); no substitute is chosen',
  },
  ...[
    "/acme/odd/releases/download/v1.0.0/odd-1.0.0-linux-amd64",
    "http://example.com/odd-1.0.0-linux-amd64",
  ].map((url) => ({
    // Recorded as given, this was a lock every later command refused ("Cannot parse lock: … is not a URL").
    label: `a release whose download URL is ${url.startsWith("/") ? "relative" : "plain http off loopback"}`,
    answer: () => {
      const good = goodAnswers().release;
      return { release: { ...good, assets: good.assets.map((a) => ({ ...a, browser_download_url: url })) } };
    },
    message: () =>
      `Cannot lock "odd" for linux/amd64: the download URL of "odd-1.0.0-linux-amd64" in acme/odd@v1.0.0 is "${url}", ${url.startsWith("/") ? "not a URL" : "not an https URL"}; a lock records only https URLs without credentials (plain http only to a loopback address)`,
  })),
  {
    // A lock is committed and shared: a token the host put into a download URL must reach neither it nor the
    // terminal (found by test/archive-fuzz.test.ts's review; the URL would otherwise be recorded as given).
    label: "a release whose download URL carries credentials",
    answer: () => {
      const good = goodAnswers().release;
      const url = "https://deploy:s3cr3t-t0ken@downloads.example/odd-1.0.0-linux-amd64";
      return { release: { ...good, assets: good.assets.map((a) => ({ ...a, browser_download_url: url })) } };
    },
    message: () =>
      'Cannot lock "odd" for linux/amd64: the download URL of "odd-1.0.0-linux-amd64" in acme/odd@v1.0.0 is "https://***@downloads.example/odd-1.0.0-linux-amd64", a URL with credentials; a lock records only https URLs without credentials (plain http only to a loopback address)',
  },
  {
    label: "a tags answer that is not JSON",
    answer: () => ({ tags: "refs/tags/v1.0.0" }),
    message: () =>
      `Cannot read the answer of ${server.url}/repos/acme/odd/git/matching-refs/tags/v1: not JSON`,
  },
]) {
  test(`lock fails clearly on ${label} and leaves toolmgr.lock byte-for-byte unchanged`, async () => {
    const p = await lockedProject();
    answers = { ...goodAnswers(), ...answer() };
    for (const args of [["lock"], ["lock", "--check"]]) {
      const r = await p.run(...args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `toolmgr: ${message()}\n`);
    }
    assert.deepEqual(await readFile(join(p.dir, "toolmgr.lock")), p.lock);
    assert.deepEqual(await readdir(p.dir), ["toolmgr.lock", "toolmgr.toml"], "no temporary file left");
  });
}

// JSON texts: sendJson sends a string as it is.
for (const repo of ["null", "[]", '"private"']) {
  test(`with a token, lock fails clearly when the repository answer is ${repo} and keeps toolmgr.lock`, async () => {
    // Found by test/cli-fuzz.test.ts: `null` stopped lock with a TypeError reading "private".
    const p = await lockedProject("a-token");
    answers = { ...goodAnswers(), repo };
    for (const args of [["lock"], ["lock", "--check"]]) {
      const r = await p.run(...args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr, 'toolmgr: Cannot read the repository "acme/odd": unexpected answer\n');
    }
    assert.deepEqual(await readFile(join(p.dir, "toolmgr.lock")), p.lock);
  });
}
