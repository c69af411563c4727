#!/usr/bin/env node
// How long a large hooks file takes to load: Debian's webhook 2.8.0 and ours started on the same generated YAML file
// (HOOKS hooks, each with a quoted multi-line message, arguments and a two-rule trigger), -verbose, until each logs
// "serving hooks on"; RUNS starts each, alternating. Prints the median and minimum per side and their ratio.
// Run: npm run build -w packages/webhook && node bench/webhook/hooks-load-bench.mjs [hooks=3000] [runs=5]
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ours = process.env.WEBHOOK_BIN ?? join(root, "packages", "webhook", "bin", "webhook.js");
const hooks = Number(process.argv[2] ?? 3000);
const runs = Number(process.argv[3] ?? 5);

function hook(i) {
  return `- id: hook-${i}
  execute-command: "/usr/bin/echo"
  command-working-directory: /tmp
  response-message: "deployed
    build ${i}"
  pass-arguments-to-command:
  - source: payload
    name: head_commit.id
  trigger-rule:
    and:
    - match:
        type: payload-hmac-sha1
        secret: mysecret
        parameter:
          source: header
          name: X-Hub-Signature
    - match:
        type: value
        value: refs/heads/master
        parameter:
          source: payload
          name: ref
`;
}

/** Milliseconds from spawn to the "serving hooks on" line; the server is stopped then. Deadline 120 s. */
function timeStart(command, args) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command}: no "serving hooks on" within 120 s:\n${log}`));
    }, 120_000);
    const onData = (chunk) => {
      log += chunk;
      if (log.includes("serving hooks on")) {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        clearTimeout(timer);
        child.once("exit", () => resolve(ms));
        child.kill("SIGTERM");
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const dir = await mkdtemp(join(tmpdir(), "webhook-hooks-load-"));
try {
  const file = join(dir, "hooks.yaml");
  const text = Array.from({ length: hooks }, (_, i) => hook(i)).join("");
  await writeFile(file, text);
  const args = ["-verbose", "-hooks", file, "-ip", "127.0.0.1", "-port", "0"];
  const sides = {
    "webhook 2.8.0 (Debian)": () => timeStart("/usr/bin/webhook", args),
    ours: () => timeStart(process.execPath, [ours, ...args]),
  };
  const times = { "webhook 2.8.0 (Debian)": [], ours: [] };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const before = load();
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? Object.keys(sides) : Object.keys(sides).reverse();
    for (const name of order) times[name].push(await sides[name]());
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const peer = times["webhook 2.8.0 (Debian)"];
  console.log(
    `${hooks} hooks, ${(text.length / 1e6).toFixed(2)} MB, ${runs} starts each; load ${before} -> ${load()}`,
  );
  console.log("| side | median [ms] | min [ms] | ratio (median) | ratio (min) |");
  console.log("|:---|---:|---:|---:|---:|");
  for (const [name, xs] of Object.entries(times)) {
    console.log(
      `| ${name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${(median(xs) / median(peer)).toFixed(2)}x | ${(Math.min(...xs) / Math.min(...peer)).toFixed(2)}x |`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
