// Composition root: the only module that touches `process`.
import { homedir } from "node:os";
import type { Spawn } from "./deps.js";
import { main } from "./main.js";

// node:child_process brings 37 of Node's internal modules (~2 ms of CPU, 4 % of Node's own start-up, measured side by
// side): loaded when a command first spawns (`exec`), not at every start. `require` in the CommonJS bundle users run,
// `process.getBuiltinModule` (Node >= 20.16) where this file runs as an ES module (dist/src/cli.js).
const spawn = ((...args: Parameters<Spawn>) =>
  (process.getBuiltinModule?.("node:child_process") ?? require("node:child_process")).spawn(
    ...args,
  )) as unknown as Spawn;

// No top-level await: the bundle is CommonJS (package.json "bundle"), whose loader starts faster than ES modules'.
main(process.argv.slice(2), {
  // Getters: process.stdout and process.stderr build a stream on first use (20 of Node's internal modules), which
  // a command that writes nothing (`sync --quiet` with everything installed) never needs.
  io: {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
  },
  env: process.env,
  cwd: process.cwd(),
  fetch: globalThis.fetch,
  now: () => new Date(),
  runtime: { platform: process.platform, arch: process.arch, homedir: homedir() },
  spawn,
  // Node resolves the main script to an absolute path, so the shims can start this same toolmgr from anywhere.
  launcher: [process.execPath, process.argv[1] ?? "toolmgr"],
  processes: {
    pid: process.pid,
    isRunning: (pid) => {
      try {
        process.kill(pid, 0); // signal 0: only asks whether the process exists
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "EPERM";
      }
    },
  },
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
}).then((code) => {
  process.exitCode = code;
});
