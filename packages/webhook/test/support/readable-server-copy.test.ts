// The copy the privilege tests run as `nobody` must be a whole server on its own (no import reaching back into the
// checkout) and readable by every user.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "./free-port.js";
import { copyServerReadable } from "./readable-server-copy.js";

let dir: string;
const children: ReturnType<typeof spawn>[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-copy-"));
});

after(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

/** Every path below `d` whose mode denies "other" reading (or traversing, for a directory). */
async function closed(d: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    const mode = (await stat(p)).mode;
    if (e.isDirectory()) {
      if ((mode & 0o005) !== 0o005) out.push(p);
      out.push(...(await closed(p)));
    } else if ((mode & 0o004) === 0) out.push(p);
  }
  return out;
}

test("the copied server starts from the copy alone and serves a hook; every file is readable by others", async () => {
  const bin = await copyServerReadable(join(dir, "server"));
  assert.deepEqual(await closed(join(dir, "server")), []);
  await writeFile(
    join(dir, "hooks.json"),
    JSON.stringify([
      {
        id: "echo",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: "copied" }],
      },
    ]),
  );
  const port = await freePort();
  // NODE_PATH empty and cwd in the copy: nothing may resolve from the checkout.
  const child = spawn(
    process.execPath,
    [bin, "-hooks", join(dir, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port)],
    {
      stdio: ["ignore", "ignore", "pipe"],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    },
  );
  children.push(child);
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  let text = "";
  for (let i = 0; ; i++) {
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/hooks/echo`)).text();
      break;
    } catch {
      if (i > 200 || child.exitCode !== null) throw new Error(`did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  assert.equal(text, "copied\n");
});
