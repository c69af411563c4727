import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildArtifact } from "./archives.js";
import { blockTool } from "./block-project.js";
import type { FakeCodeHost } from "./fake-code-host.js";
import { type CliResult, runCli, runProgram } from "./run-cli.js";
import { tempDir } from "./temp-dir.js";

/** Adds `acme/duo` v2.0.0 (linux/amd64) beside block's `acme/hello`: a second tool for multi-project stores. */
export async function addDuo(host: FakeCodeHost): Promise<void> {
  host.addRepo("acme/duo");
  host.addRelease("acme/duo", {
    tag: "v2.0.0",
    assets: [
      {
        name: "duo_2.0.0_linux_amd64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "duo", version: "2.0.0" }),
      },
    ],
  });
}

/** A `toolmgr.toml` for linux/amd64 pinning `acme/<name>` tools (`<name>_{version}_{os}_{arch}.tar.gz`). */
export function toolsToml(pins: Record<string, string>): string {
  return `platforms = ["linux/amd64"]\n${Object.entries(pins)
    .map(([name, version]) => blockTool(name, version))
    .join("")}`;
}

/** One store and one config directory (for the user toolset) shared by any number of projects under `root`. */
export interface SharedStore {
  readonly root: string;
  readonly home: string;
  readonly config: string;
  readonly env: Record<string, string>;
  run(cwd: string, ...args: string[]): Promise<CliResult>;
  /** Runs the shim of `command` in `cwd` with the store's environment (its shims first on PATH). */
  shim(cwd: string, command: string): Promise<CliResult>;
  /** Creates `root/<name>` pinning `pins`, then locks and syncs it. */
  project(name: string, pins: Record<string, string>): Promise<string>;
}

/** Creates a shared store talking to `host`. */
export async function sharedStore(host: FakeCodeHost): Promise<SharedStore> {
  const root = await tempDir("toolmgr-store-");
  const home = join(root, "store");
  const config = join(root, "config");
  const shims = join(home, "shims");
  const env = {
    TOOLMGR_HOME: home,
    XDG_CONFIG_HOME: config,
    CODEHOST_API_URL: host.apiUrl,
    PATH: `${shims}:/usr/bin:/bin`,
  };
  const run = (cwd: string, ...args: string[]) => runCli(args, { cwd, env });
  return {
    root,
    home,
    config,
    env,
    run,
    shim: (cwd, command) => runProgram(join(shims, command), [], { cwd, env }),
    async project(name, pins) {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "toolmgr.toml"), toolsToml(pins));
      const lock = await run(dir, "lock");
      assert.equal(lock.code, 0, lock.stderr);
      const sync = await run(dir, "sync");
      assert.equal(sync.code, 0, sync.stderr);
      return dir;
    },
  };
}
