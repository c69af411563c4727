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

test("sync --quiet on an installed project writes nothing and builds no stdio stream (Node's net and stream)", async () => {
  const dir = await tempDir("toolmgr-quiet-sync-");
  try {
    await writeFile(join(dir, "toolmgr.toml"), "[tools]\n");
    // Written at exit, after everything the command loaded: which of Node's modules the run needed.
    const probe = join(dir, "probe.cjs");
    await writeFile(
      probe,
      'process.on("exit", () => require("node:fs").writeFileSync(process.env.PROBE_OUT, process.moduleLoadList.join("\\n")));\n',
    );
    const env = {
      ...process.env,
      TOOLMGR_HOME: join(dir, ".home"),
      XDG_CONFIG_HOME: join(dir, ".config"),
      PROBE_OUT: join(dir, "modules.txt"),
    };
    const run = (args: string[]) =>
      execFileAsync(process.execPath, ["-r", probe, join(PACKAGE_DIR, "bin", "toolmgr.js"), ...args], {
        cwd: dir,
        env,
      });
    await run(["lock"]);
    await run(["sync", "--quiet"]);
    const again = await run(["sync", "--quiet"]);
    assert.equal(again.stdout, "");
    assert.equal(again.stderr, "");
    const modules = readFileSync(join(dir, "modules.txt"), "utf8").split("\n");
    assert.ok(!modules.includes("NativeModule net"), "net loaded");
    assert.ok(!modules.includes("NativeModule stream"), "stream loaded");
    // The probe itself works: the same project's `status` writes, so it builds stdout (a pipe here: net).
    await run(["status"]);
    assert.ok(readFileSync(join(dir, "modules.txt"), "utf8").split("\n").includes("NativeModule net"));
  } finally {
    await rm(join(dir), { recursive: true, force: true });
  }
});
