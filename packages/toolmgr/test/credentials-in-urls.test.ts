import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// Credentials written into a URL (`CODEHOST_API_URL=https://user:token@ghe.example/api/v3`, a mirror
// `https://…=https://user:token@artifactory.example/…`) are sent as the URL says, like block's Go client sends them,
// but a token never reaches a log or a file: not stderr, not the remembered API answers in the store, not the lock.

const SECRET = "s3cret-0123456789";

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

async function project(): Promise<{
  dir: string;
  run: (env: Record<string, string>, ...args: string[]) => ReturnType<typeof runCli>;
}> {
  const dir = await tempDir("toolmgr-creds-");
  await writeFile(join(dir, "toolmgr.toml"), HELLO);
  const base = {
    TOOLMGR_HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "config"),
    PATH: "/usr/bin:/bin",
  };
  return { dir, run: (env, ...args) => runCli(args, { cwd: dir, env: { ...base, ...env } }) };
}

async function filesHolding(dir: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path, "latin1")).includes(text)) found.push(path);
  }
  return found;
}

test("CODEHOST_API_URL with credentials: used, but never printed or written to the store or the lock", async () => {
  const p = await project();
  const api = host.apiUrl.replace("http://", `http://user:${SECRET}@`);
  const first = await p.run({ CODEHOST_API_URL: api }, "lock");
  assert.equal(first.code, 0, first.stderr);
  // The second lock asks again with the remembered answers' ETags: the cache works under the hidden name.
  const before304 = [...host.notModified.values()].reduce((a, b) => a + b, 0);
  const second = await p.run({ CODEHOST_API_URL: api }, "lock");
  assert.equal(second.code, 0, second.stderr);
  assert.ok(
    [...host.notModified.values()].reduce((a, b) => a + b, 0) > before304,
    "remembered answers were used",
  );
  const outdated = await p.run({ CODEHOST_API_URL: api }, "outdated", "--json");
  assert.equal(outdated.code, 0, outdated.stderr);
  for (const r of [first, second, outdated]) assert.ok(!`${r.stdout}${r.stderr}`.includes(SECRET));
  assert.deepEqual(await filesHolding(p.dir, SECRET), [], "no file holds the credentials");
  // A value that is no URL is echoed in its usage error without them.
  const bad = await p.run({ CODEHOST_API_URL: `htp://user:${SECRET}@ghe.example` }, "lock");
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /Cannot use CODEHOST_API_URL="htp:\/\/\*\*\*@ghe\.example": it is not an http\(s\) URL/,
  );
  assert.ok(!bad.stderr.includes(SECRET));
});

test("a mirror with credentials is named without them in its warning and in a usage error", async () => {
  const p = await project();
  assert.equal((await p.run({ CODEHOST_API_URL: host.apiUrl }, "lock")).code, 0);
  // A mirror that cannot be reached: the warning names it, the locked URL is tried next.
  const mirror = `http://127.0.0.1=http://user:${SECRET}@127.0.0.1:9/mirror`;
  const sync = await p.run({ CODEHOST_API_URL: host.apiUrl, TOOLMGR_MIRRORS: mirror }, "sync");
  assert.equal(sync.code, 0, sync.stderr);
  assert.match(
    sync.stderr,
    /warning: mirror http:\/\/127\.0\.0\.1=http:\/\/\*\*\*@127\.0\.0\.1:9\/mirror refused for "hello"/,
  );
  assert.ok(!sync.stderr.includes(SECRET), sync.stderr);
  // (A store of its own: a sync that downloads nothing never reads the mirrors.)
  const bad = await p.run(
    { TOOLMGR_HOME: join(p.dir, "empty-store"), TOOLMGR_MIRRORS: `https://user:${SECRET}@mirror.example/` },
    "sync",
  );
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"https:\/\/\*\*\*@mirror\.example\/" is not a mirror/);
  assert.ok(!bad.stderr.includes(SECRET));
  assert.deepEqual(await filesHolding(p.dir, SECRET), []);
});

test("a proxy URL with credentials that is refused is echoed without them", async () => {
  const p = await project();
  const r = await p.run(
    { CODEHOST_API_URL: host.apiUrl, HTTPS_PROXY: `ftp://user:${SECRET}@proxy.example:1` },
    "lock",
  );
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /Cannot use HTTPS_PROXY="ftp:\/\/\*\*\*@proxy\.example:1": it is not an http\(s\) proxy URL/,
  );
  assert.ok(!r.stderr.includes(SECRET));
});
