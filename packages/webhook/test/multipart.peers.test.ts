// Multipart bodies side by side with Debian's webhook 2.8.0 (Go 1.19 mime/multipart): every case of
// test/fixtures/multipart/cases.json gets the same status and body from both, and so does a file part spilled to a
// temporary file by -max-multipart-mem (which ours removes after the request, and 2.8.0 leaks).
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK as BIN, PEER_WEBHOOK as PEER } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/multipart/", import.meta.url));
const servers = new ServerGroup();
let dir: string;

interface Case {
  readonly name: string;
  readonly body: string;
  readonly contentType?: string;
  readonly query?: string;
}

const HOOKS = [
  {
    id: "mp",
    "execute-command": "/bin/echo",
    "include-command-output-in-response": true,
    "pass-arguments-to-command": [
      { source: "payload", name: "a" },
      { source: "payload", name: "f.x" },
      { source: "payload", name: "g" },
    ],
  },
];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-mp-peers-"));
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** Starts ours and the peer on the same hooks, each with its own TMPDIR; resolves with their base URLs. */
async function startBoth(hooks: unknown, args: string[] = []) {
  const file = join(dir, `hooks-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(hooks));
  const started = [];
  for (const [name, command, prefix] of [
    ["ours", process.execPath, [BIN]],
    ["peer", PEER, []],
  ] as const) {
    const port = await freePort();
    const spill = join(dir, `${name}-tmp-${port}`);
    await mkdir(spill);
    await servers.start(
      command,
      [...prefix, "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose", ...args],
      { ready: "serving hooks on", env: { ...process.env, TMPDIR: spill } },
    );
    started.push({ name, base: `http://127.0.0.1:${port}`, port, spill });
  }
  return started;
}

/** POSTs raw bytes (node:http, so the body goes out exactly as given). */
function post(
  port: number,
  path: string,
  contentType: string,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "Content-Type": contentType },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.on("error", reject);
    req.end(body);
  });
}

test("every multipart case of the fixture table is answered as 2.8.0 answers it", async () => {
  const cases = JSON.parse(await readFile(join(FIXTURES, "cases.json"), "utf8")) as Case[];
  const [ours, peer] = await startBoth(HOOKS);
  assert.ok(ours && peer);
  for (const c of cases) {
    const body = Buffer.from(c.body, "latin1");
    const contentType = c.contentType ?? "multipart/form-data; boundary=xxx";
    const path = `/hooks/mp${c.query ?? ""}`;
    const [a, b]: { status: number; body: string }[] = await Promise.all([
      post(ours.port, path, contentType, body),
      post(peer.port, path, contentType, body),
    ]);
    assert.deepEqual(a, b, c.name);
  }
});

test("upstream's Plex case is 200 success on both", async () => {
  const [ours, peer] = await startBoth(JSON.parse(await readFile(join(FIXTURES, "plex-hooks.json"), "utf8")));
  const body = await readFile(join(FIXTURES, "plex.txt"));
  for (const server of [ours, peer]) {
    assert.ok(server);
    assert.deepEqual(await post(server.port, "/hooks/plex", "multipart/form-data; boundary=xxx", body), {
      status: 200,
      body: "success",
    });
  }
});

test("-max-multipart-mem spills a file part to TMPDIR for the request, then removes it, on both", async () => {
  const servers2 = await startBoth(
    [
      {
        id: "ls",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: 'ls "$TMPDIR" | sed "s/[0-9]//g"; echo "$0"' },
          { source: "payload", name: "doc.name" },
        ],
      },
    ],
    ["-max-multipart-mem", "8"],
  );
  const body = Buffer.from(
    '--b\r\nContent-Disposition: form-data; name="doc"; filename="d.json"\r\nContent-Type: application/json\r\n\r\n{"name":"n","pad":"0123456789"}\r\n--b--\r\n',
  );
  const answers = [];
  for (const server of servers2) {
    answers.push(await post(server.port, "/hooks/ls", "multipart/form-data; boundary=b", body));
  }
  // Ours removes the file before answering. 2.8.0 leaves it behind: its middleware hands the handler a copy of the
  // request (r.WithContext), so net/http's finishRequest never sees the parsed form to call RemoveAll on it.
  assert.deepEqual(await readdir(servers2[0]?.spill ?? ""), []);
  assert.match((await readdir(servers2[1]?.spill ?? "")).join(), /^multipart-\d+$/);
  assert.deepEqual(answers[0], answers[1]);
  assert.deepEqual(answers[0], { status: 200, body: "multipart-\nn\n" });
});
