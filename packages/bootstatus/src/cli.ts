// Composition root: the only module that touches `process`.
import { writeSync } from "node:fs";
import { main } from "./main.js";
import { runSystemctl } from "./systemd.js";

async function readInput(file: string | undefined): Promise<string> {
  if (file !== undefined && file !== "-") {
    const { readFile } = await import("node:fs/promises");
    return readFile(file, "utf8");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// No top-level await: the same file bundles as CommonJS (the npm bin, with V8's code cache) and as ES module.
/**
 * Writes straight to a file descriptor: process.stdout and process.stderr are streams whose set-up costs a start
 * about 3 ms (bench/bootstatus/README.md). A non-blocking pipe that is full (EAGAIN) is waited on, briefly.
 */
function fdWriter(fd: number): { write(chunk: string): boolean } {
  // A reader that went away (`bootstatus | head -1`) ends the output, as SIGPIPE ends `cat`; the exit code stays.
  let closed = false;
  return {
    write(chunk) {
      let buffer = Buffer.from(chunk, "utf8");
      while (buffer.length > 0 && !closed) {
        try {
          buffer = buffer.subarray(writeSync(fd, buffer));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "EPIPE") closed = true;
          else if (code === "EAGAIN") Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          else throw error;
        }
      }
      return true;
    },
  };
}

main(process.argv.slice(2), {
  stdout: fdWriter(1),
  stderr: fdWriter(2),
  env: process.env,
  readInput,
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, ms);
    }),
  systemctl: runSystemctl(process.env),
}).then((code) => {
  process.exitCode = code;
});
