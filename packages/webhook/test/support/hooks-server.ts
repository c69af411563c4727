// Starts our server on a temporary hooks file for the black-box tests of the extensions beyond upstream, and gives
// the small tools those tests share: a shell command as a hook's arguments, waiting for a file or a condition with a
// deadline, the server's resident memory, and node's HTTP client reading an answer to its trailers.
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUR_WEBHOOK } from "./binaries.js";
import { freePort } from "./free-port.js";
import type { ServerGroup, StartedServer } from "./server-group.js";

/** `/bin/sh -c script` as a hook's `execute-command` and arguments. */
export function shHook(script: string): Record<string, unknown> {
  return {
    "execute-command": "/bin/sh",
    "pass-arguments-to-command": [
      { source: "string", name: "-c" },
      { source: "string", name: script },
    ],
  };
}

/** A temporary directory that holds the hooks file (and whatever the test's commands write). */
export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

/** A started server: its base URL, port and process. */
export interface HooksServer extends StartedServer {
  readonly port: number;
  readonly base: string;
}

/** Writes `hooks` to `<dir>/hooks.json` (unless `write` is false) and starts our server on it with `flags`. */
export async function startHooksServer(
  group: ServerGroup,
  options: { dir: string; hooks?: readonly Record<string, unknown>[]; flags?: readonly string[] },
): Promise<HooksServer> {
  if (options.hooks !== undefined)
    await writeFile(join(options.dir, "hooks.json"), JSON.stringify(options.hooks));
  const port = await freePort();
  const started = await group.start(
    process.execPath,
    [
      OUR_WEBHOOK,
      "-hooks",
      "hooks.json",
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-verbose",
      ...(options.flags ?? []),
    ],
    { ready: "serving hooks on", cwd: options.dir },
  );
  return { ...started, port, base: `http://127.0.0.1:${port}` };
}

/** Resolves once `check` is true, polling every 25 ms; rejects naming `what` after `ms`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Whether a process is alive (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's resident memory in bytes (Linux `/proc/<pid>/status`). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** An answer read by node's HTTP client, trailers included (fetch does not expose them). */
export interface TrailedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly trailers: Readonly<Record<string, string | undefined>>;
}

/** Sends a request with node's HTTP client and reads the whole answer, trailers included (20 s deadline). */
export function httpGet(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<TrailedAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          trailers: res.trailers,
        }),
      );
      res.on("error", reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
    req.end();
  });
}
