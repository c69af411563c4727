// A kill -9 loses at most one interval of pushes: a push is in the file within --persistence.interval (and the
// write's own time), the file is replaced atomically (a crash mid-write leaves the previous one), and a restart
// removes the temporary file such a crash leaves beside it. Figures at 1e6 series: bench/pushgateway/README.md.
import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { readPersistence } from "../src/store/disk/persistence.js";
import { startGateway, stopAll } from "./support/processes.js";
import { withTempDir } from "./support/temp-dir.js";

after(stopAll);

test("kill -9 after one interval: the push answered before it is there after the restart", async () => {
  await withTempDir("pgw-crash-", async (dir) => {
    const file = join(dir, "pushgateway.data");
    const args = [`--persistence.file=${file}`, "--persistence.interval=1s"];
    const first = await startGateway(args);
    for (let g = 0; g < 20; g++) {
      let body = "# TYPE crash_metric gauge\n";
      for (let i = 0; i < 1000; i++) body += `crash_metric{series="s${i}"} ${i}\n`;
      assert.equal(
        (await fetch(`${first.base}/metrics/job/fill/instance/i${g}`, { method: "PUT", body })).status,
        200,
      );
    }
    assert.equal(
      (await fetch(`${first.base}/metrics/job/marker`, { method: "PUT", body: "marker 1\n" })).status,
      200,
    );
    // Within the interval and the write (a deadline, not a measurement): the marker reaches the file.
    const deadline = Date.now() + 15_000;
    let written = false;
    while (!written && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      written = (await readPersistence(file).catch(() => [])).some((g) => g.labels.job === "marker");
    }
    assert.ok(written, "the push reached the file");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    // What a crash in the middle of a write leaves beside the file.
    await writeFile(join(dir, "pushgateway.data.0123456789ab.tmp"), "partial");
    const second = await startGateway(args);
    const text = await (await fetch(`${second.base}/metrics`)).text();
    assert.match(text, /^marker\{instance="",job="marker"\} 1$/m);
    assert.match(text, /^crash_metric\{instance="i19",job="fill",series="s999"\} 999$/m);
    assert.deepEqual(await readdir(dir), ["pushgateway.data"]);
  });
});
