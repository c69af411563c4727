#!/usr/bin/env node
// Part of `npm run bundle`: V8's code cache for dist/toolmgr.cjs, written to dist/toolmgr.cjs.cache, which
// bin/toolmgr.js hands to vm.Script so a start does not compile the 300 kB bundle first (what `useCodeCache` does for
// the single executable; Node 20 has no module.enableCompileCache). The cache is taken after a real run, so it holds
// the functions a start compiles, not only the top level: `sync --quiet` on an empty, already synced project in a
// temporary directory (the recorded-answers path `exec`, `which`, `status` and `sync` share), offline, with its
// own store and configuration directory; nothing outside that directory is read or written.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const dist = join(pkg, "dist");
const bundle = join(dist, "toolmgr.cjs");
const launcher = join(pkg, "bin", "toolmgr.js");

if (process.argv[2] === "--make-cache") {
  // bin/toolmgr.js wraps the source exactly like this, so V8 accepts the cache there.
  const script = new vm.Script(Module.wrap(readFileSync(bundle, "utf8")), { filename: bundle });
  process.argv = [process.argv[0] ?? process.execPath, launcher, "sync", "--quiet"];
  process.once("exit", (code) => {
    if (code === 0) writeFileSync(`${bundle}.cache`, script.createCachedData());
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dist);
} else {
  rmSync(`${bundle}.cache`, { force: true });
  const project = mkdtempSync(join(tmpdir(), "toolmgr-code-cache-"));
  try {
    writeFileSync(join(project, "toolmgr.toml"), "[tools]\n");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: project,
      TOOLMGR_HOME: join(project, ".home"),
      XDG_CONFIG_HOME: join(project, ".config"),
      TOOLMGR_OFFLINE: "1",
    };
    const step = (args) => {
      const child = spawnSync(process.execPath, args, { cwd: project, env, encoding: "utf8" });
      if (child.status !== 0) {
        throw new Error(
          `making the code cache: ${args.join(" ")} failed (exit ${child.status}): ${child.stderr}`,
        );
      }
    };
    step([launcher, "lock"]);
    step([launcher, "sync", "--quiet"]);
    step([fileURLToPath(import.meta.url), "--make-cache"]);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
