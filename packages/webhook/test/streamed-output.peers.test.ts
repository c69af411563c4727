// Streamed output and jobs read by curl (Debian package curl), the client users run by hand and in CI scripts:
// chunked output with the exit-code trailer (`--raw` shows the framing), Server-Sent Events, following a job's
// output, and curl killed mid-stream stopping the command.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  alive,
  type HooksServer,
  removeDir,
  shHook,
  startHooksServer,
  tempDir,
  waitFor,
} from "./support/hooks-server.js";
import { ServerGroup } from "./support/server-group.js";

const CURL = "/usr/bin/curl";
const group = new ServerGroup();
const curls = new Set<ChildProcess>();
let dir: string;
let server: HooksServer;

before(async () => {
  dir = await tempDir("webhook-curl-");
  server = await startHooksServer(group, {
    dir,
    hooks: [
      { id: "lines", "stream-command-output": true, ...shHook("echo one; echo two >&2; exit 5") },
      {
        id: "forever",
        "stream-command-output": true,
        ...shHook(`echo $$ > ${join(dir, "forever.pid")}; echo started; exec sleep 1000`),
      },
      {
        id: "job",
        ...shHook(`echo first; while [ ! -e ${join(dir, "go")} ]; do sleep 0.02; done; echo second`),
      },
    ],
    flags: ["-jobs-dir", join(dir, "jobs")],
  });
});

after(async () => {
  for (const curl of curls) curl.kill("SIGKILL");
  await group.stopAll();
  const pid = Number(await readFile(join(dir, "forever.pid"), "utf8").catch(() => "0"));
  if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
  await removeDir(dir);
});

/** Runs curl; resolves with what it printed once it exits (20 s deadline). `onData` sees stdout as it comes. */
function curl(
  args: readonly string[],
  onData?: (text: string, child: ChildProcess) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(CURL, ["-sS", "-N", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    curls.add(child);
    let out = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      onData?.(out, child);
    });
    child.on("error", reject);
    child.on("exit", () => {
      clearTimeout(timer);
      curls.delete(child);
      resolve(out);
    });
  });
}

test("curl --raw: the output chunked as it comes, the exit code in the trailer", async () => {
  const out = await curl(["--raw", "-i", `${server.base}/hooks/lines`]);
  assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(out, /\r\nTrailer: X-Webhook-Exit-Code\r\n/);
  assert.match(out, /\r\nTransfer-Encoding: chunked\r\n/);
  assert.ok(out.endsWith("\r\n0\r\nX-Webhook-Exit-Code: 5\r\n\r\n"), JSON.stringify(out));
  const body = await curl([`${server.base}/hooks/lines`]);
  assert.equal(body, "one\ntwo\n");
});

test("curl with Accept: text/event-stream reads Server-Sent Events", async () => {
  const out = await curl(["-H", "Accept: text/event-stream", `${server.base}/hooks/lines`]);
  assert.equal(out, "event: output\ndata: one\n\nevent: output\ndata: two\n\nevent: exit\ndata: 5\n\n");
});

test("curl killed mid-stream stops the command", async () => {
  await curl([`${server.base}/hooks/forever`], (text, child) => {
    if (text === "started\n") child.kill("SIGTERM");
  });
  const pid = Number(await readFile(join(dir, "forever.pid"), "utf8"));
  await waitFor(`process ${pid} to end`, () => !alive(pid));
});

test("curl follows a job's output while it runs", async () => {
  const head = await curl(["-i", `${server.base}/hooks/job`]);
  const id = /\r\nX-Webhook-Job-Id: ([0-9a-f]{32})\r\n/.exec(head)?.[1];
  assert.ok(id !== undefined, head);
  const out = await curl([`${server.base}/jobs/${id}/output`], (text) => {
    if (text === "first\n") void writeFile(join(dir, "go"), "");
  });
  assert.equal(out, "first\nsecond\n");
  const state = JSON.parse(await curl([`${server.base}/jobs/${id}`])) as { state: string; exit_code: number };
  assert.deepEqual([state.state, state.exit_code], ["succeeded", 0]);
});
