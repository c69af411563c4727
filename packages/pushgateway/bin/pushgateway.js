#!/usr/bin/env node
// Thin launcher committed with its executable bit, so the bin works right after `npm ci`
// builds dist/ (npm links bins before the build creates the compiled entry).
import "../dist/src/cli.js";
