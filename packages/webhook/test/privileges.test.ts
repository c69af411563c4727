import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "./support/free-port.js";
import { copyServerReadable } from "./support/readable-server-copy.js";

// -setuid/-setgid through the built server. Both cases need root: one to drop to another user, one to start as
// another user who may not switch. The server runs from a copy in a temporary directory every user can
// read: the dropped user cannot read a checkout under a 0700 directory.
const NOBODY = 65534;
const skip =
  process.getuid?.() === 0
    ? false
    : "needs root: -setuid/-setgid can only be tested by a user allowed to switch";
let dir: string;
let BIN: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-privileges-"));
  // The server reads its hooks after dropping privileges, as upstream: the files must be readable by that user.
  await chmod(dir, 0o755);
  BIN = await copyServerReadable(join(dir, "server"));
  await writeFile(
    join(dir, "hooks.json"),
    JSON.stringify([
      {
        id: "whoami",
        "execute-command": "/usr/bin/id",
        "include-command-output-in-response": true,
      },
    ]),
    { mode: 0o644 },
  );
});

const children: ReturnType<typeof spawn>[] = [];
after(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

test("-setuid and -setgid drop to that user and group after listening; commands run as them", {
  skip,
}, async () => {
  const port = await freePort();
  const dropped = spawn(
    process.execPath,
    [
      BIN,
      "-hooks",
      join(dir, "hooks.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-setuid",
      String(NOBODY),
      "-setgid",
      String(NOBODY),
    ],
    { stdio: ["ignore", "ignore", "pipe"], cwd: dir },
  );
  children.push(dropped);
  let text = "";
  for (let i = 0; ; i++) {
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/hooks/whoami`)).text();
      break;
    } catch {
      if (i > 200) throw new Error("did not start");
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  assert.match(
    text,
    new RegExp(`^uid=${NOBODY}\\(\\w+\\) gid=${NOBODY}\\(\\w+\\) groups=${NOBODY}\\(\\w+\\)\\n$`),
  );
});

/** Runs the built server until it exits (20 s at most); resolves with its exit code and stderr. */
function runToExit(args: readonly string[], options: { uid?: number; gid?: number } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    cwd: dir,
    ...options,
  });
  children.push(child);
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  return new Promise<{ code: number | null; log: string }>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`no exit within 20 s; stderr: ${log}`)), 20_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(deadline);
      resolve({ code, log });
    });
  });
}

test("a drop that is not permitted is upstream's error line and exit 1", { skip }, async () => {
  const port = await freePort();
  // Started as nobody by node itself (spawn's uid/gid also clear the supplementary groups, as runuser does), so the
  // test needs no program beyond Node.
  const { code, log } = await runToExit(
    [
      "-hooks",
      join(dir, "hooks.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-setuid",
      "1",
      "-setgid",
      "1",
    ],
    { uid: NOBODY, gid: NOBODY },
  );
  assert.equal(code, 1);
  assert.match(
    log,
    /^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d error dropping privileges: operation not permitted$/m,
  );
});

test("-socket with -setuid/-setgid is refused as 2.8.1+ refuse it, binding nothing", async () => {
  const socket = join(dir, "refused.sock");
  const { code, log } = await runToExit([
    "-hooks",
    join(dir, "hooks.json"),
    "-socket",
    socket,
    "-setuid",
    String(NOBODY),
    "-setgid",
    String(NOBODY),
  ]);
  assert.equal(code, 1);
  // platform_unix.go's words; a user who may not switch also gets the failed drop's line after it (webhook.go).
  assert.match(
    log,
    /^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d error listening on socket: -setuid and -setgid options are not compatible with -socket\. {2}If you need to bind a socket as root but run webhook as a different user, consider using systemd activation$/m,
  );
  assert.equal(existsSync(socket), false);
});
