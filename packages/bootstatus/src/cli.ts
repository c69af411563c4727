// Composition root: the only module that touches `process`.
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

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  readInput,
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, ms);
    }),
  systemctl: runSystemctl(process.env),
});
