// Start-up failures of Debian's prometheus-pushgateway 1.5.1, run as start-errors.test.ts runs ours, so where we
// differ is visible (and a change on either side shows).
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { PEER_GATEWAY } from "./support/peers.js";
import { freePort, stopAll } from "./support/processes.js";
import { occupiedPort, runUntilExit } from "./support/run-until-exit.js";

// Debian's build defaults --persistence.file to /var/lib/prometheus/pushgateway.data: memory only unless a test names
// a file (kingpin refuses the flag twice).
const peer = (args: string[]) =>
  runUntilExit(
    PEER_GATEWAY,
    args.some((a) => a.startsWith("--persistence.file=")) ? args : ["--persistence.file=", ...args],
  );

after(stopAll);

// Deliberately not matched: 1.5.1 (and upstream main.go to this day) logs the failed bind and then returns from
// main, so it exits 0 and a supervisor sees a clean stop. Recorded here so a change on either side shows.
test("listen address taken: the peer logs 'HTTP server stopped' with the bind error and exits 0", async () => {
  const { port, server } = await occupiedPort();
  try {
    const r = await peer([`--web.listen-address=127.0.0.1:${port}`]);
    assert.equal(r.code, 0);
    assert.equal(r.listened, false);
    assert.match(
      r.log,
      new RegExp(
        `level=error msg="HTTP server stopped" err="listen tcp 127\\.0\\.0\\.1:${port}: bind: address already in use"`,
      ),
    );
  } finally {
    server.close();
  }
});

// Our refusal (start-errors.test.ts) is deliberate (README: a corrupt file stops the start rather than starting empty): 1.5.1
// logs the load error, serves an empty store and on shutdown overwrites the file it could not read.
test("persistence file the peer cannot load: it logs, starts empty and overwrites the file on shutdown", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-start-peer-"));
  const file = join(dir, "store.json");
  const content = '{"version":2,"groups":[]}\n';
  try {
    await writeFile(file, content);
    const r = await peer([
      `--web.listen-address=127.0.0.1:${await freePort()}`,
      `--persistence.file=${file}`,
    ]);
    assert.equal(r.code, 0);
    assert.equal(r.listened, true);
    assert.match(r.log, /level=error msg="could not load persisted metrics" err="unexpected EOF"/);
    assert.notEqual(await readFile(file, "utf8"), content);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
