import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { tempDir } from "./temp-dir.js";

/** Debian's `docker-registry` (the CNCF distribution registry), started on 127.0.0.1 with storage in a temp dir. */
export interface DockerRegistry {
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  /** The filesystem storage root (`<root>/docker/registry/v2/blobs/sha256/<ab>/<hex>/data`). */
  readonly root: string;
  /** The config file (for `docker-registry garbage-collect <config>`). */
  readonly config: string;
  stop(): Promise<void>;
}

export const DOCKER_REGISTRY = "/usr/bin/docker-registry";

/** Starts the registry and waits (at most 20 s) until `/v2/` answers. */
export async function startDockerRegistry(): Promise<DockerRegistry> {
  const dir = await tempDir("toolmgr-registry-");
  const root = join(dir, "storage");
  const port = await freePort();
  const config = join(dir, "config.yml");
  await writeFile(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: error",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${root}`,
      "  delete:",
      "    enabled: true",
      "http:",
      `  addr: 127.0.0.1:${port}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(DOCKER_REGISTRY, ["serve", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/v2/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not answer within 20 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host: `127.0.0.1:${port}`, root, config, stop };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
