// The persistence file is checked before memory is spent on it: a gob of another type is refused from its type
// definitions, before its values are read, however large; a file over the documented limit (a quarter of V8's heap
// limit) is refused before it is read, naming the limit and how to raise it. The file is left as it was.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { GOB_TYPE_ID, GobWriter } from "../src/store/disk/go-gob.js";
import { GATEWAY_BIN, stopAll } from "./support/processes.js";
import { runUntilExit } from "./support/run-until-exit.js";
import { withTempDir } from "./support/temp-dir.js";

after(stopAll);

/** A gob of `map[string]string` holding `bytes` of values: a valid gob, of the wrong type. */
function wrongTypeGob(bytes: number): Buffer {
  const gob = new GobWriter();
  gob.define(65, { map: [GOB_TYPE_ID.STRING, GOB_TYPE_ID.STRING], name: "map[string]string" });
  const value = Buffer.alloc(1024 * 1024, 0x61);
  const entries = Math.ceil(bytes / value.length);
  gob.value(65, { singleton: true }, (w) => {
    w.uint(entries);
    for (let i = 0; i < entries; i++) w.string(`k${i}`).raw(value);
  });
  return gob.finish();
}

const start = (file: string, env?: NodeJS.ProcessEnv) =>
  runUntilExit(
    process.execPath,
    [GATEWAY_BIN, "--web.listen-address=127.0.0.1:0", `--persistence.file=${file}`],
    {
      ...(env ? { env } : {}),
    },
  );

test("a 50 MB gob of another type is refused from its type definitions, and left as it was", async () => {
  await withTempDir("pgw-limits-", async (dir) => {
    const file = join(dir, "pushgateway.data");
    const data = wrongTypeGob(50 * 1024 * 1024);
    await writeFile(file, data);
    const run = await start(file);
    assert.equal(run.code, 1, run.log);
    assert.equal(run.listened, false);
    assert.match(
      run.log,
      /Cannot parse persistence file .*: neither upstream's gob nor our JSON \(a metric group is a string, not a struct\); move it aside or fix it/,
    );
    assert.ok((await readFile(file)).equals(data), "the file is left as it was");
  });
});

test("a file over a quarter of the heap limit is refused before it is read, naming the limit", async () => {
  await withTempDir("pgw-limits-", async (dir) => {
    const file = join(dir, "pushgateway.data");
    await writeFile(file, wrongTypeGob(40 * 1024 * 1024));
    // A 64 MiB old space: a heap limit of about 112 MiB, so a limit of about 28 MiB.
    const run = await start(file, { ...process.env, NODE_OPTIONS: "--max-old-space-size=64" });
    assert.equal(run.code, 1, run.log);
    assert.match(
      run.log,
      /Cannot read persistence file .*: open .*: is \d+ bytes, over the limit of \d+ bytes for --persistence\.file \(a quarter of V8's heap limit; raise it with NODE_OPTIONS=--max-old-space-size=<MiB>\)/,
    );
  });
});
