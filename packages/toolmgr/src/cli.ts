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
  // Node resolves the main script to an absolute path, so the shims can start this same toolmgr from anywhere.
  launcher: [process.execPath, process.argv[1] ?? "toolmgr"],
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
});
