// Multipart bodies through our built server: upstream's Plex case (bare-LF part separators) and -max-multipart-mem
// spilling file parts to temporary files that are gone once the request is over.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK as BIN } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/multipart/", import.meta.url));
const servers = new ServerGroup();
let dir: string;
let spill: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-mp-"));
  spill = join(dir, "tmp");
  await mkdir(spill);
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

async function start(hooks: unknown, args: string[] = []): Promise<string> {
  const file = join(dir, `hooks-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(hooks));
  const port = await freePort();
  await servers.start(
    process.execPath,
    [BIN, "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose", ...args],
    { ready: "serving hooks on", env: { ...process.env, TMPDIR: spill } },
  );
  return `http://127.0.0.1:${port}`;
}

test("upstream's Plex case: bare-LF parts, a JSON payload value and a binary file part", async () => {
  const base = await start(JSON.parse(await readFile(join(FIXTURES, "plex-hooks.json"), "utf8")));
  const body = await readFile(join(FIXTURES, "plex.txt"));
  const res = await fetch(`${base}/hooks/plex`, {
    method: "POST",
    headers: { "Content-Type": "multipart/form-data; boundary=xxx" },
    body,
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "success");
});

test("-max-multipart-mem: a larger file part is read from a temporary file that is removed after the request", async () => {
  const base = await start(
    [
      {
        id: "ls",
        "execute-command": "/bin/ls",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [
          { source: "string", name: spill },
          { source: "payload", name: "doc.name" },
        ],
      },
    ],
    ["-max-multipart-mem", "8"],
  );
  const form = new FormData();
  form.set(
    "doc",
    new Blob(['{"name":"/dev/null","pad":"0123456789"}'], { type: "application/json" }),
    "doc.json",
  );
  const res = await fetch(`${base}/hooks/ls`, { method: "POST", body: form });
  assert.equal(res.status, 200);
  const listing = await res.text();
  // While the command ran, the part was on disk; the JSON it held was read back from there.
  assert.match(listing, /multipart-\d+/);
  assert.match(listing, /\/dev\/null/);
  assert.deepEqual(await readdir(spill), []);

  // Within the limit nothing is written.
  const small = new FormData();
  small.set("doc", new Blob(['{"name":"/dev/null"}'], { type: "application/json" }), "d.json");
  const base2 = await start(
    [
      {
        id: "ls",
        "execute-command": "/bin/ls",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: spill }],
      },
    ],
    [],
  );
  const res2 = await fetch(`${base2}/hooks/ls`, { method: "POST", body: small });
  assert.equal(await res2.text(), "");
});

test("a multipart body Go refuses is a 500 with upstream's text", async () => {
  const base = await start([{ id: "x", "execute-command": "/bin/true" }]);
  const res = await fetch(`${base}/hooks/x`, {
    method: "POST",
    headers: { "Content-Type": "multipart/form-data; boundary=xxx" },
    body: "--xxx\r\nnocolon\r\n\r\nv\r\n--xxx--",
  });
  assert.equal(res.status, 500);
  assert.equal(await res.text(), "Error occurred while parsing multipart form.");
});
