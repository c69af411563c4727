import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runOk, userEnv } from "./run.js";

/** The repository root (this file is packages/packaging/dist/test/support/release-files.js). */
export const REPO = fileURLToPath(new URL("../../../../../", import.meta.url));

/** The four tools a release ships, in the order scripts/release.mjs builds and prints them. */
export const TOOLS = ["toolmgr", "webhook", "pushgateway", "bootstatus"] as const;

/** A tool's version as its package.json (and so its release file names and image tags) carries it. */
export function toolVersion(tool: string): string {
  return (
    JSON.parse(readFileSync(join(REPO, "packages", tool, "package.json"), "utf8")) as { version: string }
  ).version;
}

/** Runs scripts/release.mjs of `repo` for some tools into `out`; returns the file names written there. */
export async function releaseFiles(options: {
  repo?: string;
  out: string;
  tools: readonly string[];
}): Promise<string[]> {
  const repo = options.repo ?? REPO;
  await runOk(
    process.execPath,
    [join(repo, "scripts", "release.mjs"), "--out", options.out, "--tools", options.tools.join(",")],
    {
      cwd: repo,
      env: userEnv(),
      timeoutMs: 300_000,
    },
  );
  return readdirSync(options.out);
}

/**
 * `npm install -g` of tarballs into an empty prefix as a user would, but with an empty npm cache and --offline: the
 * tarballs must carry every dependency, so this passes with no registry and nothing of this repository.
 */
export async function installTarballs(options: {
  prefix: string;
  cache: string;
  tarballs: readonly string[];
  cwd: string;
}): Promise<void> {
  await runOk(
    "npm",
    [
      "install",
      "--global",
      "--prefix",
      options.prefix,
      "--cache",
      options.cache,
      "--offline",
      "--no-audit",
      "--no-fund",
      ...options.tarballs,
    ],
    { cwd: options.cwd, timeoutMs: 240_000, env: userEnv({ npm_config_update_notifier: "false" }) },
  );
}
