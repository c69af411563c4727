#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci` builds dist/
// (npm links bins before the build creates it). It loads the esbuild bundle: one file instead of a dozen
// modules keeps start-up close to `node -e 0` (bench/bootstatus/README.md).
import "../dist/bundle/cli.js";
