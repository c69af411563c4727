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

/** What the tags and release endpoints answer next. */
let answers: { tags: unknown; release: unknown };
let server: ScriptedServer;

function goodAnswers(): typeof answers {
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
async function lockedProject() {
  const dir = await tempDir("toolmgr-odd-");
  const home = await tempDir("toolmgr-odd-home-");
  await writeFile(join(dir, "toolmgr.toml"), TOML);
  const env = { CODEHOST_API_URL: server.url, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
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
