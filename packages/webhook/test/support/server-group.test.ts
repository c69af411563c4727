// A peer that is not installed must fail a test file at once and leave nothing running: the helper rejects with
// the spawn error (not its deadline), and a whole `node --test` file whose `before` starts our server and then a
// missing peer ends by itself, failed, with our server stopped.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as OURS } from "./binaries.js";
import { ServerGroup } from "./server-group.js";

const MISSING = "/nonexistent/usr/bin/webhook";
const HELPER = new URL("./server-group.js", import.meta.url).href;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-group-"));
  await writeFile(join(dir, "hooks.json"), "[]");
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** True while a process with this pid exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("starting a program that does not exist rejects with the spawn error, not the deadline", async () => {
  const group = new ServerGroup();
  try {
    // The deadline is far longer than the runner's per-test limit: only the spawn error can end this in time.
    await assert.rejects(
      group.start(MISSING, ["-port", "0"], { ready: "serving hooks on", deadlineMs: 600_000 }),
      /cannot start \/nonexistent\/usr\/bin\/webhook: spawn \/nonexistent\/usr\/bin\/webhook ENOENT/,
    );
  } finally {
    await group.stopAll();
  }
});

test("a test file whose peer is missing fails by itself and stops the server it had already started", async () => {
  const file = join(dir, "missing-peer.test.mjs");
  await writeFile(
    file,
    `import { writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { ServerGroup } from ${JSON.stringify(HELPER)};
const group = new ServerGroup();
before(async () => {
  const ours = await group.start(process.execPath, [${JSON.stringify(OURS)}, "-hooks", ${JSON.stringify(join(dir, "hooks.json"))},
    "-ip", "127.0.0.1", "-port", "0", "-verbose"], { ready: "serving hooks on", deadlineMs: 600_000 });
  writeFileSync(${JSON.stringify(join(dir, "ours.pid"))}, String(ours.child.pid));
  await group.start(${JSON.stringify(MISSING)}, ["-port", "0"], { ready: "serving hooks on", deadlineMs: 600_000 });
});
after(() => group.stopAll());
test("never reached", () => {});
`,
  );
  const env = { ...process.env };
  // Run as a top-level `node --test`, not as a subtest reporting into this runner.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ["--test", file], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c))),
    new Promise<"hung">((resolve) => {
      timer = setTimeout(() => resolve("hung"), 90_000);
    }),
  ]);
  clearTimeout(timer);
  if (code === "hung") child.kill("SIGKILL");
  assert.notEqual(code, "hung", `the file did not end by itself: ${output}`);
  assert.equal(code, 1, output);
  assert.match(output, /cannot start \/nonexistent\/usr\/bin\/webhook/);
  const pid = Number(await readFile(join(dir, "ours.pid"), "utf8"));
  assert.ok(pid > 0);
  assert.equal(alive(pid), false, `our server (pid ${pid}) is still running`);
});
