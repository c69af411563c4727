#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci` builds dist/
// (npm links bins before the build creates it). CommonJS (bin/package.json): it loads the esbuild bundle, one
// CommonJS file in which each command's modules are initialised only when that command runs (dynamic imports
// become lazy initialisers), so no ES module loader starts: `exec`, `which`, `status` and `sync` start close to
// `node -e 0` (bench/toolmgr/README.md, "Hot paths"). dist/src/cli.js is the same program unbundled, for tests and
// debugging.
require("../dist/toolmgr.cjs");
