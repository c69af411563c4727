// Black-box tests of start-up failures, ours alone: a listen address already taken, and a persistence file that
// cannot be loaded. Debian's prometheus-pushgateway 1.5.1 run the same way: start-errors.peers.test.ts.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort, GATEWAY_BIN, stopAll } from "./support/processes.js";
import { occupiedPort, runUntilExit } from "./support/run-until-exit.js";

const ours = (args: string[]) => runUntilExit(process.execPath, [GATEWAY_BIN, ...args]);

after(stopAll);

test("listen address taken: ours logs the error and exits 1 without serving", async () => {
  const { port, server } = await occupiedPort();
  try {
    const r = await ours([`--web.listen-address=127.0.0.1:${port}`]);
    assert.equal(r.code, 1);
    assert.equal(r.listened, false);
    assert.match(
      r.log,
      new RegExp(
        `^ts=\\S+ level=error msg="Error listening: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}"$`,
        "m",
      ),
    );
  } finally {
    server.close();
  }
});

test("persistence file that is a directory: ours refuses to start, exit 1, naming the file; nothing written", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-start-dir-"));
  // Tests run as root, so chmod 000 would still be readable: a directory is the unreadable file here.
  const file = join(dir, "store");
  try {
    await mkdir(file);
    const r = await ours([
      `--web.listen-address=127.0.0.1:${await freePort()}`,
      `--persistence.file=${file}`,
    ]);
    assert.equal(r.code, 1);
    assert.equal(r.listened, false);
    assert.ok(
      r.log.includes(
        `level=error msg="Cannot read persistence file \\"${file}\\": open ${file}: is a directory, not a regular file"`,
      ),
      r.log,
    );
    assert.deepEqual(await readdir(dir), ["store"]);
    assert.deepEqual(await readdir(file), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("persistence file of another format version: ours refuses to start, exit 1, and leaves the file as it was", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-start-version-"));
  const file = join(dir, "store.json");
  const content = '{"version":2,"groups":[]}\n';
  try {
    await writeFile(file, content);
    const r = await ours([
      `--web.listen-address=127.0.0.1:${await freePort()}`,
      `--persistence.file=${file}`,
    ]);
    assert.equal(r.code, 1);
    assert.equal(r.listened, false);
    assert.ok(
      r.log.includes(
        `level=error msg="Cannot parse persistence file \\"${file}\\": expected format version 1 with a groups list"`,
      ),
      r.log,
    );
    assert.equal(await readFile(file, "utf8"), content);
    assert.deepEqual(await readdir(dir), ["store.json"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
