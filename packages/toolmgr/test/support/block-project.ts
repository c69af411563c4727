import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildArtifact } from "./archives.js";
import { FakeCodeHost } from "./fake-code-host.js";
import { type CliResult, runCli, runProgram } from "./run-cli.js";
import { tempDir } from "./temp-dir.js";

// Helpers for the scenarios of nao1215/block's end-to-end suite (e2e/atago/*.atago.yaml, run there against
// internal/fakegh), translated to toolmgr and run through the built CLI against a fake code host that answers in the
// shape of block's fake: release assets without an API `url`, tag refs without `object`, commits as `{"sha": …}`.

/** A fake code host shaped like block's fake GitHub, with `acme/hello` v1.2.0 (no host digest) and v1.2.3 (digest). */
export async function startBlockHost(): Promise<FakeCodeHost> {
  const host = await FakeCodeHost.start();
  host.shape = "block";
  host.addRepo("acme/hello");
  for (const version of ["1.2.0", "1.2.3"]) {
    host.addRelease("acme/hello", {
      tag: `v${version}`,
      assets: [
        {
          name: `hello_${version}_linux_amd64.tar.gz`,
          data: await buildArtifact("tar.gz", { name: "hello", version }),
          digest: version === "1.2.3",
        },
      ],
    });
  }
  return host;
}

/** `acme/hello` as a project-local tool under the constraint `1.2`, for linux/amd64. */
export const HELLO = `platforms = ["linux/amd64"]
[tools.hello]
version = "1.2"
[tools.hello.source]
type = "github_release"
repo = "acme/hello"
asset = "hello_{version}_{os}_{arch}.tar.gz"
bin = ["hello"]
`;

/** A project directory with a store of its own, and ways to run toolmgr or one of its shims there. */
export interface BlockProject {
  readonly dir: string;
  readonly home: string;
  run(...args: string[]): Promise<CliResult>;
  /** Runs the shim of `command` from `cwd` (the project by default) with only the shims and /usr/bin, /bin on PATH. */
  shim(command: string, options?: { args?: string[]; cwd?: string }): Promise<CliResult>;
}

/** Creates a project with `toml` as its `toolmgr.toml`, talking to `host`. */
export async function blockProject(host: FakeCodeHost, toml: string): Promise<BlockProject> {
  const dir = await tempDir("toolmgr-block-");
  const home = join(dir, "home");
  await writeFile(join(dir, "toolmgr.toml"), toml);
  // A config directory of its own: no user toolset of the machine running the tests takes part.
  const config = join(dir, "config");
  const env = {
    TOOLMGR_HOME: home,
    CODEHOST_API_URL: host.apiUrl,
    PATH: "/usr/bin:/bin",
    XDG_CONFIG_HOME: config,
  };
  return {
    dir,
    home,
    run: (...args) => runCli(args, { cwd: dir, env }),
    shim: (command, options = {}) =>
      runProgram(join(home, "shims", command), options.args ?? [], {
        cwd: options.cwd ?? dir,
        env: { PATH: `${join(home, "shims")}:/usr/bin:/bin`, TOOLMGR_HOME: home, XDG_CONFIG_HOME: config },
      }),
  };
}

/**
 * A project-local tool `name` from `acme/<name>`, its assets named the way block's fake names them
 * (`<name>_<version>_<os>_<arch>.tar.gz`), with `extra` source lines.
 */
export function blockTool(name: string, version: string, extra = ""): string {
  return `[tools.${name}]
version = "${version}"
[tools.${name}.source]
type = "github_release"
repo = "acme/${name}"
asset = "${name}_{version}_{os}_{arch}.tar.gz"
bin = ["${name}"]
${extra}`;
}

/**
 * Publishes release `v<version>` (or `tag`) of `acme/<name>` with one linux/amd64 tar.gz that has a host digest:
 * `data`, else an archive holding the fake tool `name`.
 */
export async function publishBlockTool(
  host: FakeCodeHost,
  name: string,
  version: string,
  options: { tag?: string; data?: Buffer } = {},
): Promise<void> {
  host.addRelease(`acme/${name}`, {
    tag: options.tag ?? `v${version}`,
    assets: [
      {
        name: `${name}_${version}_linux_amd64.tar.gz`,
        data: options.data ?? (await buildArtifact("tar.gz", { name, version })),
        digest: true,
      },
    ],
  });
}
