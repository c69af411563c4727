#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci` builds dist/
// (npm links bins before the build creates it). CommonJS (bin/package.json): it runs the esbuild bundle, one
// CommonJS file in which each command's modules are initialised only when that command runs (dynamic imports
// become lazy initialisers), so no ES module loader starts, through V8's code cache the build wrote beside it
// (scripts/code-cache.mjs), so a start does not compile the bundle first: `exec`, `which`, `status` and `sync` start
// close to `node -e 0` (bench/toolmgr/README.md, "Hot paths"). A cache V8 does not accept (another Node, another
// build) is ignored and the bundle compiled as usual. dist/src/cli.js is the same program unbundled, for tests and
// debugging.
"use strict";
const { readFileSync } = require("node:fs");
const { createRequire, Module } = require("node:module");
const path = require("node:path");
const vm = require("node:vm");

const dir = path.join(__dirname, "..", "dist");
const file = path.join(dir, "toolmgr.cjs");
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, dir);
