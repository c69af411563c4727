#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci`
// builds dist/ (npm links bins before the build creates the compiled entry).
// V8 sized for memory, not peak throughput, before anything is allocated: at 100k series this halves the resident
// memory for a few percent of scrape time (bench/pushgateway/README.md). Replicas on Redis turn it off (main.ts).
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--optimize-for-size");
// The young generation kept at its starting size (two 1 MiB semi-spaces) instead of growing to 16 MiB while pushes
// fill the store: 7-11 MiB less resident memory at 100k series, for about 0.2 ms more CPU per 100-series push
// (bench/pushgateway/README.md). `--max-semi-space-size` would do the same but V8 reads it only at start; this flag
// is read on every growth, so Redis replicas can turn it back (store/open-store.ts).
setFlagsFromString("--semi-space-growth-factor=1");
// Regular expressions from requests (match[] selectors, the status page's filter) run in linear time, as Prometheus'
// RE2 does (src/linear-regexp.ts).
setFlagsFromString("--enable-experimental-regexp-engine");
await import("../dist/src/cli.js");
