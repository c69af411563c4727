import type { ChildProcess } from "node:child_process";
import { freePort, startProcess } from "./processes.js";

/** Debian's redis-server (package redis-server); the variable lets a test point it elsewhere. */
export const REDIS_SERVER = process.env.PUSHGATEWAY_TEST_REDIS ?? "/usr/bin/redis-server";

/**
 * Starts a throwaway redis-server on 127.0.0.1 without persistence (`--save ""`, `--appendonly no`: a restart
 * comes back empty, the case the gateway must survive). Registered with {@link startProcess}, so the file's
 * `after(stopAll)` stops it. Rejects at once, naming the Debian package, when redis-server is not installed.
 */
export async function startRedis(port?: number): Promise<{ child: ChildProcess; port: number; url: string }> {
  const p = port ?? (await freePort());
  try {
    const { child } = await startProcess(
      REDIS_SERVER,
      [
        "--port",
        String(p),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--protected-mode",
        "yes",
        // DEBUG SET-ACTIVE-EXPIRE, from loopback only: a test turns off Redis's expiry cycle to see lazy expiry.
        "--enable-debug-command",
        "local",
      ],
      { ready: /Ready to accept connections/, readyOn: "stdout" },
    );
    return { child, port: p, url: `redis://127.0.0.1:${p}/0` };
  } catch (e) {
    throw new Error(`${(e as Error).message} (install Debian's redis-server, as .ci/run does)`, { cause: e });
  }
}
