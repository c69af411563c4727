import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/pushgateway.js", import.meta.url));

/** A free 127.0.0.1 port (bound once and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts the built gateway on 127.0.0.1 and resolves once it logs its address. */
export async function startGateway(args: string[] = []): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const c = spawn(process.execPath, [BIN, `--web.listen-address=127.0.0.1:${port}`, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let log = "";
    c.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
      if (log.includes("Listening on")) resolve();
    });
    c.on("exit", (code) => reject(new Error(`pushgateway exited ${code}: ${log}`)));
  });
  return { child: c, base: `http://127.0.0.1:${port}` };
}
