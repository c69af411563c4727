#!/usr/bin/env node
// `npm run images` (after `npm ci`; the npm script builds first, as `npm run release` does): builds the webhook and
// pushgateway container images (README "Install", "Container image") from packages/<tool>/Containerfile, each on a
// build context holding only its release tarball
// (built here with scripts/release.mjs), with no network: the tarballs carry every dependency.
//   node scripts/images.mjs [--engine podman|docker] [--node-image IMAGE] [--tag-prefix PREFIX] [--tools a,b]
// The engine defaults to $CONTAINER_ENGINE, else podman when installed, else docker. --node-image sets the
// Containerfiles' NODE_IMAGE build argument (default: theirs, node:20-bookworm-slim). Images are tagged
// <prefix><tool>:<version> and <prefix><tool>:latest (prefix default "localhost/"). Prints one tag per line.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const IMAGES = ["webhook", "pushgateway"];

const { values: options } = parseArgs({
  options: {
    engine: { type: "string", default: process.env.CONTAINER_ENGINE ?? "" },
    "node-image": { type: "string" },
    "tag-prefix": { type: "string", default: "localhost/" },
    tools: { type: "string", default: IMAGES.join(",") },
  },
});

function installed(program) {
  return spawnSync(program, ["--version"], { stdio: "ignore" }).status === 0;
}

const engine = options.engine || (installed("podman") ? "podman" : "docker");
const tools = options.tools.split(",");
for (const tool of tools) {
  if (!IMAGES.includes(tool))
    throw new Error(`--tools: no image for "${tool}" (one of ${IMAGES.join(", ")})`);
}

/** Runs a step quietly; when it fails, its whole output goes to stderr before the error. */
function run(program, args) {
  const result = spawnSync(program, args, {
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    throw new Error(
      `${program} ${args.join(" ")}: ${result.error?.message ?? `exit status ${result.status}`}`,
    );
  }
}

const work = mkdtempSync(join(tmpdir(), "images-"));
try {
  const tarballs = join(work, "release");
  run(process.execPath, [
    join(root, "scripts", "release.mjs"),
    "--out",
    tarballs,
    "--tools",
    tools.join(","),
  ]);
  for (const tool of tools) {
    const { version } = JSON.parse(readFileSync(join(root, "packages", tool, "package.json"), "utf8"));
    const tarball = readdirSync(tarballs).find((name) => name === `${tool}-${version}.tgz`);
    if (tarball === undefined) throw new Error(`release wrote no ${tool}-${version}.tgz`);
    // The context is the tarball alone: the Containerfile copies nothing else, and a small context builds fast.
    const context = join(work, `${tool}-context`);
    mkdirSync(context);
    copyFileSync(join(tarballs, tarball), join(context, tarball));
    const tags = [`${options["tag-prefix"]}${tool}:${version}`, `${options["tag-prefix"]}${tool}:latest`];
    const args = ["build", "--network", "none", "-f", join(root, "packages", tool, "Containerfile")];
    if (options["node-image"] !== undefined) args.push("--build-arg", `NODE_IMAGE=${options["node-image"]}`);
    for (const tag of tags) args.push("-t", tag);
    run(engine, [...args, context]);
    for (const tag of tags) process.stdout.write(`${tag}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
