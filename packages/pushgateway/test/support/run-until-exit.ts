// Start-up runs: a gateway that is expected to refuse to start, or to start and be stopped at once.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { track } from "./processes.js";

/**
 * Runs a gateway until it exits; soon after it logs "Listening on" it is sent SIGTERM, so a start that succeeds ends
 * too.
 * Resolves with the exit code, the stderr and whether it got as far as listening.
 */
export function runUntilExit(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; log: string; listened: boolean }> {
  const child = spawn(command, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: options.env ?? process.env,
  });
  track(child);
  // A start that neither listens nor exits is a failure, not a hang.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let log = "";
  let listened = false;
  child.stderr.on("data", (d: Buffer) => {
    log += d.toString();
    if (!listened && log.includes("Listening on")) {
      listened = true;
      // The peer logs "Listening on" before its signal handler is surely installed (a goroutine): a SIGTERM at once
      // could meet Go's default action and end it by the signal (seen under load), not by its shutdown path.
      setTimeout(() => child.kill("SIGTERM"), 500);
    }
  });
  return new Promise((resolve, reject) => {
    child.once("error", (e) => {
      clearTimeout(deadline);
      reject(new Error(`Cannot start ${command}: ${e.message}`, { cause: e }));
    });
    child.once("close", (code) => {
      clearTimeout(deadline);
      resolve({ code, log, listened });
    });
  });
}
/** Holds a 127.0.0.1 port with a plain TCP server, as another process would. */
export async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}
