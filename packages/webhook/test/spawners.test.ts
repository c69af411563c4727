import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as BIN } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";

// Commands start with libc's posix_spawn (koffi) by default, and from node spawn helpers where koffi cannot load
// (forced here with WEBHOOK_NODE_SPAWN=1). Both must run commands alike, through the built server.
const servers: { name: string; child: ChildProcess; base: string; log: string }[] = [];
let dir: string;

async function start(name: string, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, "-hooks", "hooks.json", "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const server = { name, child, base: `http://127.0.0.1:${port}`, log: "" };
  child.stderr?.on("data", (c: Buffer) => (server.log += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", () => server.log.includes("serving hooks on") && resolve());
    child.on("exit", (code) => reject(new Error(`${name} exited ${code}: ${server.log}`)));
  });
  servers.push(server);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-spawners-"));
  const sh = (script: string) => [
    { source: "string", name: "-c" },
    { source: "string", name: script },
    { source: "payload", name: "word" },
  ];
  const sync = { "include-command-output-in-response": true };
  await writeFile(
    join(dir, "hooks.json"),
    JSON.stringify([
      { id: "ppid", "execute-command": "/bin/sh", ...sync, "pass-arguments-to-command": sh("echo $PPID") },
      {
        id: "echo",
        "execute-command": "/bin/sh",
        ...sync,
        "pass-arguments-to-command": sh('printf "%s|" "$0" "$HOOK_word"; pwd; echo err >&2; exit 3'),
        "pass-environment-to-command": [{ source: "payload", name: "word" }],
        "include-command-output-in-response-on-error": true,
        "command-working-directory": "/usr",
      },
      {
        id: "stuck",
        "execute-command": "/bin/sh",
        ...sync,
        "pass-arguments-to-command": sh("sleep 30"),
        timeout: 1,
      },
    ]),
  );
  await start("posix_spawn", {});
  await start("helpers", { WEBHOOK_NODE_SPAWN: "1" });
});

after(async () => {
  for (const s of servers) s.child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const post = (base: string, id: string, body: unknown) =>
  fetch(`${base}/hooks/${id}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

test("by default the server starts commands itself; with WEBHOOK_NODE_SPAWN=1 a helper does", async () => {
  const [direct, helpers] = servers as [(typeof servers)[0], (typeof servers)[0]];
  assert.equal(
    (await (await post(direct.base, "ppid", { word: "x" })).text()).trim(),
    String(direct.child.pid),
  );
  const helperPid = (await (await post(helpers.base, "ppid", { word: "x" })).text()).trim();
  assert.match(helperPid, /^\d+$/);
  assert.notEqual(helperPid, String(helpers.child.pid));
});

for (const name of ["posix_spawn", "helpers"]) {
  test(`${name}: argv, environment, working directory, merged output and exit status`, async () => {
    const server = servers.find((s) => s.name === name) as (typeof servers)[0];
    const res = await post(server.base, "echo", { word: "two words; $(no shell)" });
    assert.equal(res.status, 500);
    assert.equal(await res.text(), "two words; $(no shell)|two words; $(no shell)|/usr\nerr\n");
    assert.match(server.log, /error occurred: exit status 3/);
  });

  test(`${name}: 150 requests at once all run their command`, async () => {
    const server = servers.find((s) => s.name === name) as (typeof servers)[0];
    const answers = await Promise.all(
      Array.from({ length: 150 }, async () => {
        const res = await post(server.base, "ppid", { word: "x" });
        return `${res.status} ${/^\d+\n$/.test(await res.text())}`;
      }),
    );
    assert.deepEqual(new Set(answers), new Set(["200 true"]));
  });

  test(`${name}: the timeout stops the command`, async () => {
    const server = servers.find((s) => s.name === name) as (typeof servers)[0];
    const started = Date.now();
    const res = await post(server.base, "stuck", { word: "" });
    assert.equal(res.status, 500);
    assert.ok(Date.now() - started < 5000, "stopped after its 1 s timeout");
    assert.match(server.log, /error occurred: signal: terminated/);
  });
}
