// Composition root: the only module that touches `process`.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { isSea } from "node:sea";
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), {
  io: { stdout: process.stdout, stderr: process.stderr },
  env: process.env,
  cwd: process.cwd(),
  fetch: globalThis.fetch,
  now: () => new Date(),
  runtime: { platform: process.platform, arch: process.arch, homedir: homedir() },
  spawn,
  // Node resolves the main script to an absolute path, so the shims can start this same toolmgr from anywhere. The
  // single executable (README "Install") is the program itself: its argv[1] is only the name it was called by.
  launcher: isSea() ? [process.execPath] : [process.execPath, process.argv[1] ?? "toolmgr"],
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
});
