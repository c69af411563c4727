#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci` builds dist/
// (npm links bins before the build creates it). It loads the esbuild bundle: one small entry whose commands are
// split into chunks loaded on demand, so `toolmgr version` and `toolmgr list` start close to `node -e 0`
// (bench/toolmgr/README.md, "Start-up"). dist/src/cli.js is the same program unbundled, for tests and debugging.
import "../dist/toolmgr.mjs";
