import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "./release-files.js";

/** What these tests use of toolmgr's fake code host (packages/toolmgr/test/support/fake-code-host.ts). */
export interface CodeHost {
  readonly apiUrl: string;
  addRepo(name: string): void;
  addRelease(repo: string, release: { tag: string; assets: { name: string; data: Buffer }[] }): void;
  close(): Promise<void>;
}

/**
 * Starts toolmgr's own fake of the code-hosting API (loopback, port 0) with two tools: `medusa`, a registry recipe,
 * and `hello`, a project-local source, each at 1.0.0. Loaded from toolmgr's built tests by path at run time: the
 * installed tools under test must not see this repository, but the fake is the one toolmgr's suite trusts.
 */
export async function startCodeHost(): Promise<CodeHost> {
  const support = join(REPO, "packages", "toolmgr", "dist", "test", "support");
  const { FakeCodeHost } = (await import(pathToFileURL(join(support, "fake-code-host.js")).href)) as {
    FakeCodeHost: { start(): Promise<CodeHost> };
  };
  const { buildArtifact } = (await import(pathToFileURL(join(support, "archives.js")).href)) as {
    buildArtifact(kind: "tar.gz" | "raw", options: { name: string; version: string }): Promise<Buffer>;
  };
  const host = await FakeCodeHost.start();
  host.addRepo("crytic/medusa");
  host.addRelease("crytic/medusa", {
    tag: "v1.0.0",
    assets: [
      {
        name: "medusa-linux-x64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "medusa", version: "1.0.0" }),
      },
    ],
  });
  host.addRepo("acme/hello");
  host.addRelease("acme/hello", {
    tag: "v1.0.0",
    assets: [
      { name: "hello-1.0.0-linux", data: await buildArtifact("raw", { name: "hello", version: "1.0.0" }) },
    ],
  });
  return host;
}

/**
 * A project pinning both tools. `hello`'s source is in the project file, which the shims' awk pass does not read,
 * so every shim hands over to `toolmgr exec` through the launcher toolmgr wrote into it: the path a single
 * executable must get right.
 */
export const PROJECT = `platforms = ["linux/amd64"]
[tools]
medusa = "1"
[tools.hello]
version = "1.0.0"
[tools.hello.source]
type = "github_release"
repo = "acme/hello"
asset = "hello-{version}-{os}"
bin = ["hello"]
platforms = ["linux/amd64"]
`;
