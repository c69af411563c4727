import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

/** The launcher of the built gateway. */
export const GATEWAY_BIN = fileURLToPath(new URL("../../../bin/pushgateway.js", import.meta.url));

const live = new Set<ChildProcess>();

/** Options of {@link startProcess}. */
export interface StartOptions {
  /** A match in the process's stderr (or stdout) that means it is ready. */
  ready: RegExp;
  /** How long to wait for `ready` before the start fails and the process is killed. @default 30000 */
  deadlineMs?: number;
  /** Where the process's output goes besides the ready check. @default "stderr" */
  readyOn?: "stderr" | "stdout";
  /** The child's stdio (stdout and stderr must stay pipes), for passing further descriptors such as a socket. */
  stdio?: ("ignore" | "pipe" | number)[];
}

/** A started process and everything it wrote to stderr (or stdout) so far. */
export interface Started {
  child: ChildProcess;
  log(): string;
}

/**
 * Starts a program and resolves once its output matches `ready`. It rejects at once when the program cannot be
 * started (a missing path is `ENOENT` within milliseconds), when it exits first, or when the deadline passes. Every
 * process started here is stopped by {@link stopAll}, which each test file runs in an `after` hook, so a failed test
 * or a failed `before` never leaves a process that keeps the file alive.
 */
export function startProcess(command: string, args: string[], options: StartOptions): Promise<Started> {
  const child = spawn(command, args, { stdio: options.stdio ?? ["ignore", "pipe", "pipe"] });
  track(child);
  let log = "";
  const stream = options.readyOn === "stdout" ? child.stdout : child.stderr;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${command} did not get ready within ${options.deadlineMs ?? 30_000} ms: ${log}`)),
      options.deadlineMs ?? 30_000,
    );
    stream?.on("data", (d: Buffer) => {
      log += d.toString();
      if (options.ready.test(log)) {
        clearTimeout(timer);
        resolve({ child, log: () => log });
      }
    });
    // Drain the other stream so a chatty process never blocks on a full pipe.
    (stream === child.stderr ? child.stdout : child.stderr)?.resume();
    child.once("error", (e) => fail(new Error(`Cannot start ${command}: ${e.message}`, { cause: e })));
    child.once("exit", (code, signal) =>
      fail(new Error(`${command} exited ${code ?? signal} before ready: ${log}`)),
    );
  });
}

/**
 * Registers a child started elsewhere so {@link stopAll} stops it. When `PUSHGATEWAY_TEST_PID_FILE` is set (the
 * test that proves a peer-less run leaves nothing behind), each pid is appended to that file.
 */
export function track(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.once("error", () => live.delete(child));
  const pidFile = process.env.PUSHGATEWAY_TEST_PID_FILE;
  if (pidFile && child.pid !== undefined) appendFileSync(pidFile, `${child.pid}\n`);
}

/** Stops every process still running that this file started (SIGTERM, then SIGKILL after 5 s). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => stop(c)));
}

/** Stops one process (SIGTERM, then SIGKILL after 5 s) and resolves once it has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

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
export async function startGateway(
  args: string[] = [],
): Promise<{ child: ChildProcess; base: string; log: () => string }> {
  const port = await freePort();
  const { child, log } = await startProcess(
    process.execPath,
    [GATEWAY_BIN, `--web.listen-address=127.0.0.1:${port}`, ...args],
    { ready: /Listening on/ },
  );
  return { child, base: `http://127.0.0.1:${port}`, log };
}
