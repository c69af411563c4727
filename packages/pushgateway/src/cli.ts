// Composition root: the only module that touches `process`.
import { setFlagsFromString } from "node:v8";
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  now: () => new Date(),
  onSignal: (signal, handler) => process.on(signal, handler),
  exit: (code) => process.exit(code),
  env: process.env,
  pid: process.pid,
  runtime: { node: process.versions.node, platform: process.platform, arch: process.arch },
  setV8Flags: setFlagsFromString,
});
