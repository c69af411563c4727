import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { Module } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import vm from "node:vm";
import { PACKAGE_DIR } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

const execFileAsync = promisify(execFile);
const bundle = join(PACKAGE_DIR, "dist", "toolmgr.cjs");

test("the build's code cache fits the bundle as bin/toolmgr.js wraps it (V8 accepts it)", () => {
  // What bin/toolmgr.js does; a rejected cache would cost every start the whole compile again, silently.
  const script = new vm.Script(
    (Module as unknown as { wrap(s: string): string }).wrap(readFileSync(bundle, "utf8")),
    {
      filename: bundle,
      cachedData: readFileSync(`${bundle}.cache`),
    },
  );
  assert.equal(script.cachedDataRejected, false);
});

test("the launcher runs the bundle without its cache, and with one V8 rejects", async () => {
  const dir = await tempDir("toolmgr-code-cache-");
  try {
    await mkdir(join(dir, "bin"));
    await mkdir(join(dir, "dist"));
    await cp(join(PACKAGE_DIR, "bin", "toolmgr.js"), join(dir, "bin", "toolmgr.js"));
    await cp(join(PACKAGE_DIR, "bin", "package.json"), join(dir, "bin", "package.json"));
    await cp(bundle, join(dir, "dist", "toolmgr.cjs"));
    const version = () =>
      execFileAsync(process.execPath, [join(dir, "bin", "toolmgr.js"), "version"], { cwd: dir });
    assert.match((await version()).stdout, /^toolmgr v/);
    await writeFile(join(dir, "dist", "toolmgr.cjs.cache"), Buffer.from("not a V8 code cache"));
    assert.match((await version()).stdout, /^toolmgr v/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
