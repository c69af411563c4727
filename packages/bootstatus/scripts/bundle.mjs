#!/usr/bin/env node
// `npm run bundle`: the CLI as one CommonJS file, dist/bundle/cli.cjs, and V8's code cache for it,
// dist/bundle/cli.cjs.cache, which bin/bootstatus.cjs hands to vm.Script so a start does not compile the bundle
// first (what `useCodeCache` does for the single executable; Node 20 has no module.enableCompileCache). CommonJS
// because Node's ES module loader costs a start a few milliseconds more (bench/bootstatus/README.md).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${pkg}dist/bundle`;
const outfile = `${outdir}/cli.cjs`;

if (process.argv[2] === "--make-cache") {
  // `--make-cache [bundle]`: scripts/release.mjs makes the single executable's cache the same way, for its bundle.
  const file = process.argv[3] ?? outfile;
  const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), { filename: file });
  const module = { exports: {} };
  process.argv = [process.argv[0], file, "--long", "--root", `${pkg}test/fixtures/degraded-done/root`];
  process.once("beforeExit", () => {
    writeFileSync(`${file}.cache`, script.createCachedData());
    process.exitCode = 0;
  });
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
} else {
  await bundle();
}

async function bundle() {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: [`${pkg}src/cli.ts`],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile,
    // Modules loaded on demand stay on demand: each import() becomes a require() run when first needed.
    supported: { "dynamic-import": false },
    external: ["yaml", "ajv"],
    // src/schema.ts finds the shipped schema relative to its module: the bundle's own URL, also two levels down.
    define: { "import.meta.url": "__bootstatusUrl" },
    banner: { js: 'var __bootstatusUrl = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: "silent",
  });
  if (result.warnings.length > 0 || result.errors.length > 0) {
    throw new Error(`esbuild: ${[...result.errors, ...result.warnings].map((w) => w.text).join("\n")}`);
  }

  // The cache is taken after a real run, so it holds the functions a start compiles, not only the top level: a
  // child process (its output dropped) runs `--long` over a fixture tree and writes the cache when it is done.
  // bin/bootstatus.js wraps the source exactly like this.
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--make-cache"], {
    stdio: "ignore",
  });
  if (child.status !== 0) throw new Error(`making the code cache failed (exit ${child.status})`);
}
