// Composition root: the only module that touches `process`.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), {
  io: { stdout: process.stdout, stderr: process.stderr },
  env: process.env,
  cwd: process.cwd(),
  fetch: globalThis.fetch,
  now: () => new Date(),
  runtime: { platform: process.platform, arch: process.arch, homedir: homedir() },
  spawn,
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
});
