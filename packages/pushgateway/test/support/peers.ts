import type { ChildProcess } from "node:child_process";
import { freePort, startProcess } from "./processes.js";

/**
 * Debian's prometheus-pushgateway (1.5.1), the live reference of the `*.peers.test.ts` files. The environment
 * variable exists for the test that proves a missing peer fails a file at once (test/missing-peer.test.ts).
 */
export const PEER_GATEWAY = process.env.PUSHGATEWAY_TEST_PEER ?? "/usr/bin/prometheus-pushgateway";

/**
 * Starts the peer gateway on a free 127.0.0.1 port, memory only unless `args` names a persistence file (Debian's
 * build defaults `--persistence.file` to /var/lib/prometheus/pushgateway.data and kingpin refuses the flag twice).
 * Rejects within milliseconds when the peer is not installed, naming the Debian package.
 */
export async function startPeerGateway(args: string[] = []): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const persistence = args.some((a) => a.startsWith("--persistence.file")) ? [] : ["--persistence.file="];
  try {
    const { child } = await startProcess(
      PEER_GATEWAY,
      [`--web.listen-address=127.0.0.1:${port}`, ...persistence, ...args],
      { ready: /Listening on/ },
    );
    return { child, base: `http://127.0.0.1:${port}` };
  } catch (e) {
    throw new Error(`${(e as Error).message} (install Debian's prometheus-pushgateway, as .ci/run does)`, {
      cause: e,
    });
  }
}
