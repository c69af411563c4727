#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci`
// builds dist/ (npm links bins before the build creates the compiled entry).
// V8 sized for memory, not peak throughput, before anything is allocated: at 100k series this halves the resident
// memory for a few percent of scrape time (bench/pushgateway/README.md). Replicas on Redis turn it off (main.ts).
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--optimize-for-size");
// Regular expressions from requests (match[] selectors, the status page's filter) run in linear time, as Prometheus'
// RE2 does (src/linear-regexp.ts).
setFlagsFromString("--enable-experimental-regexp-engine");
await import("../dist/src/cli.js");
