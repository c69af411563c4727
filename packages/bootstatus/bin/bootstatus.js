#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci` builds dist/ (npm links
// bins before the build creates it). It runs the one-file CommonJS bundle through V8's code cache that the build
// wrote beside it (scripts/bundle.mjs): start-up within 10 % of `node -e 0` (bench/bootstatus/README.md). A cache
// V8 does not accept (another Node) is ignored and the bundle compiled as usual. CommonJS (bin/package.json says
// so): Node's ES module loader would cost a start more than the whole bundle does.
"use strict";
const { readFileSync } = require("node:fs");
const { createRequire, Module } = require("node:module");
const path = require("node:path");
const vm = require("node:vm");

const dir = path.join(__dirname, "..", "dist", "bundle");
const file = path.join(dir, "cli.cjs");
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
const module_ = { exports: {} };
script.runInThisContext()(module_.exports, createRequire(file), module_, file, dir);
