import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Deps } from "../../src/deps.js";
import { main } from "../../src/main.js";
import type { FakeCodeHost } from "./fake-code-host.js";
import { tempDir } from "./temp-dir.js";

/** A temp project with `toolmgr.toml` and its own store, wired to a fake code host. */
export interface Project {
  readonly dir: string;
  readonly home: string;
  run(
    args: readonly string[],
    env?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  write(toml: string): Promise<void>;
}

/**
 * Creates a project whose commands talk to `host` and run as linux/amd64, or on `machine` (as Node names platforms),
 * starting processes with `spawn` (node's by default) and subscribing to signals with `onSignal` (none by default).
 */
export async function makeProject(
  host: FakeCodeHost,
  toml: string,
  options: {
    machine?: { platform: string; arch: string };
    spawn?: typeof spawn;
    onSignal?: Deps["onSignal"];
    /** The clock (a release cooldown counts from it). @default 2026-11-23T00:00:00Z */
    now?: () => Date;
  } = {},
): Promise<Project> {
  const dir = await tempDir("toolmgr-project-");
  const home = await tempDir("toolmgr-home-");
  const write = (text: string) => writeFile(join(dir, "toolmgr.toml"), text);
  await write(toml);
  return {
    dir,
    home,
    write,
    async run(args, env = {}) {
      let stdout = "";
      let stderr = "";
      const deps: Deps = {
        io: {
          stdout: { write: (s: string) => (stdout += s) },
          stderr: { write: (s: string) => (stderr += s) },
        },
        env: { PATH: process.env.PATH, CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, ...env },
        cwd: dir,
        fetch: globalThis.fetch,
        now: options.now ?? (() => new Date("2026-11-23T00:00:00Z")),
        runtime: { ...(options.machine ?? { platform: "linux", arch: "x64" }), homedir: home },
        spawn: options.spawn ?? spawn,
        onSignal: options.onSignal ?? (() => () => {}),
        processes: { pid: process.pid, isRunning: () => true },
      };
      const code = await main(args, deps);
      return { code, stdout, stderr };
    },
  };
}

/** A project-local tool definition for a fake repository. */
export function localTool(name: string, options: { version: string; repo: string; extra?: string }): string {
  return `[tools.${name}]
version = "${options.version}"

[tools.${name}.source]
type = "github_release"
repo = "${options.repo}"
asset = "${name}-{version}-{os}-{arch}.tar.gz"
bin = ["${name}"]
platforms = ["linux/amd64", "darwin/arm64"]
${options.extra ?? ""}
[tools.${name}.source.channels.nightly]
asset = "${name}-nightly-{os}-{arch}.tar.gz"
`;
}
