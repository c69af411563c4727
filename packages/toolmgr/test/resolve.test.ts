import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ResolveError, UnsupportedPlatformError } from "../src/errors.js";
import { createHttpClient } from "../src/http/client.js";
import { createCodeHost } from "../src/http/code-host.js";
import type { LockedTool } from "../src/lockfile.js";
import type { Platform } from "../src/platform.js";
import type { ProjectTool } from "../src/project/project-file.js";
import { type ResolveContext, resolveTool } from "../src/resolve/resolve.js";
import { parseSource } from "../src/source/source.js";
import { parseConstraint } from "../src/version/constraint.js";
import { FakeCodeHost, sha256 } from "./support/fake-code-host.js";

let host: FakeCodeHost;
const vendorCommit = "0123456789abcdef0123456789abcdef01234567";
const stampCommit = "fedcba9876543210fedcba9876543210fedcba98";

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/vendor");
  host.setTag("acme/vendor", "v2.0.0", { commit: vendorCommit, annotated: true });
  host.setTag("acme/vendor", "v2.0.1-rc.1");
  host.setTag("acme/vendor", "v20.0.0");
  host.addRepo("acme/stamp");
  host.setTag("acme/stamp", "v1.0.0", { commit: stampCommit });
  host.addRelease("acme/stamp", {
    tag: "v1.0.0",
    assets: [
      { name: "stamp-1.0.0-fedcba98-linux-amd64", data: Buffer.from("stamp linux") },
      { name: "stamp-1.0.0-fedcba98-darwin-arm64", data: Buffer.from("stamp mac"), digest: false },
    ],
  });
  host.addRepo("acme/night");
  const draftCommit = host.setTag("acme/night", "nightly-aaaaaaaa", { commit: "a".repeat(40) });
  host.addRelease("acme/night", { tag: `nightly-${draftCommit.slice(0, 8)}`, draft: true, assets: [] });
});

after(async () => {
  await host.close();
});

function tool(name: string, version: string, source: Record<string, unknown>): ProjectTool {
  return { name, constraint: parseConstraint(version, name), source: parseSource(source, `test ${name}`) };
}

function context(
  platforms: readonly Platform[],
  options: { previous?: LockedTool; allowed?: string; digests?: string[] } = {},
): ResolveContext {
  const http = createHttpClient({ fetch: globalThis.fetch, apiBase: host.apiUrl, sleep: async () => {} });
  return {
    codeHost: createCodeHost(http),
    platforms,
    previous: options.previous,
    checkPrivacy: false,
    allowHost: ({ host: h, repo }) =>
      h === (options.allowed ?? "downloads.example.org") && repo === "acme/vendor",
    digest: async (artifact) => {
      options.digests?.push(artifact.url);
      return sha256(Buffer.from(artifact.url));
    },
  };
}

const vendor = {
  type: "http",
  repo: "acme/vendor",
  url: "https://downloads.example.org/vendor-{os}-{arch}-{version}-{commit}.tar.gz",
  bin: ["vendor"],
};

test("an http source takes its version from tags and {commit} from the dereferenced annotated tag", async () => {
  const digests: string[] = [];
  const locked = await resolveTool(
    tool("vendor", "2", vendor),
    context(["linux/amd64", "darwin/arm64"], { digests }),
  );
  assert.equal(locked.version, "2.0.0", "v20.0.0 is not under 2; a pre-release is never picked by a prefix");
  assert.deepEqual(
    locked.artifacts.map((a) => [a.platform, a.url]),
    [
      ["darwin/arm64", "https://downloads.example.org/vendor-darwin-arm64-2.0.0-01234567.tar.gz"],
      ["linux/amd64", "https://downloads.example.org/vendor-linux-amd64-2.0.0-01234567.tar.gz"],
    ],
  );
  assert.equal(digests.length, 2, "no host digest for http: trust on first use, once per platform");
  assert.equal(host.count("/repos/acme/vendor/releases/"), 0, "an http source has no release to ask for");
  assert.equal(host.count("/repos/acme/vendor/git/tags/"), 1, "the annotated tag was dereferenced once");
});

test("an http source on a host outside the policy is refused", async () => {
  await assert.rejects(
    resolveTool(tool("vendor", "2", vendor), context(["linux/amd64"], { allowed: "other.example.org" })),
    (error: unknown) =>
      error instanceof ResolveError &&
      /"downloads\.example\.org" is not in the host policy/.test(error.message),
  );
});

test("a code-hosting URL under type http is refused when the source is read", () => {
  assert.throws(
    () =>
      tool("bad", "1", {
        ...vendor,
        url: "https://github.com/acme/vendor/releases/download/v{version}/x.tar.gz",
      }),
    /code-hosting host/,
  );
});

test("a release asset named after the commit uses the lightweight tag's commit without another request", async () => {
  const stamp = {
    type: "github_release",
    repo: "acme/stamp",
    asset: "stamp-{version}-{commit}-{os}-{arch}",
    bin: ["stamp"],
  };
  const before = host.count("/repos/acme/stamp/commits/") + host.count("/repos/acme/stamp/git/tags/");
  const digests: string[] = [];
  const locked = await resolveTool(
    tool("stamp", "1.0", stamp),
    context(["linux/amd64", "darwin/arm64"], { digests }),
  );
  assert.equal(host.count("/repos/acme/stamp/commits/") + host.count("/repos/acme/stamp/git/tags/"), before);
  const linux = locked.artifacts.find((a) => a.platform === "linux/amd64");
  assert.equal(
    linux?.sha256,
    sha256(Buffer.from("stamp linux")),
    "the host digest is used without a download",
  );
  assert.equal(digests.length, 1, "only the asset without a host digest is downloaded");
});

test("re-locking an unchanged URL keeps the recorded digest, and a replaced asset is refused", async () => {
  const stamp = {
    type: "github_release",
    repo: "acme/stamp",
    asset: "stamp-{version}-{commit}-{os}-{arch}",
    bin: ["stamp"],
  };
  const first = await resolveTool(tool("stamp", "1", stamp), context(["darwin/arm64", "linux/amd64"]));
  const digests: string[] = [];
  const again = await resolveTool(
    tool("stamp", "1", stamp),
    context(["darwin/arm64", "linux/amd64"], { previous: first, digests }),
  );
  assert.deepEqual(again, first);
  assert.deepEqual(digests, [], "an unchanged artifact is never fetched twice");
  const tampered: LockedTool = {
    ...first,
    artifacts: first.artifacts.map((a) =>
      a.platform === "linux/amd64" ? { ...a, sha256: "0".repeat(64) } : a,
    ),
  };
  await assert.rejects(
    resolveTool(tool("stamp", "1", stamp), context(["linux/amd64"], { previous: tampered })),
    /the host now reports sha256 [0-9a-f]{64} for .* but the lock records 0{64}; the asset was replaced upstream/,
  );
});

test("a <channel>-<commit> pin naming a draft is unusable", async () => {
  const night = {
    type: "github_release",
    repo: "acme/night",
    asset: "night-{version}-{os}-{arch}",
    bin: ["night"],
    channels: { nightly: { asset: "night-nightly-{os}-{arch}" } },
  };
  await assert.rejects(
    resolveTool(tool("night", "nightly-aaaaaaaa", night), context(["linux/amd64"])),
    (error: unknown) =>
      error instanceof ResolveError && /no published release "nightly-aaaaaaaa"|draft/.test(error.message),
  );
});

test("a platform outside the source's platforms is unsupported, naming tool, platform and release", async () => {
  await assert.rejects(
    resolveTool(tool("vendor", "2", { ...vendor, platforms: ["linux/amd64"] }), context(["windows/arm64"])),
    (error: unknown) =>
      error instanceof UnsupportedPlatformError &&
      /Cannot lock "vendor" for windows\/arm64: acme\/vendor@v2\.0\.0 is not published for it/.test(
        error.message,
      ),
  );
});

test("a full triple asks for its release directly, without listing tags", async () => {
  const stamp = {
    type: "github_release",
    repo: "acme/stamp",
    asset: "stamp-{version}-{commit}-{os}-{arch}",
    bin: ["s"],
  };
  const refs = host.count("/repos/acme/stamp/git/matching-refs/");
  const locked = await resolveTool(tool("stamp", "1.0.0", stamp), context(["linux/amd64"]));
  assert.equal(locked.version, "1.0.0");
  assert.equal(
    locked.artifacts[0]?.url,
    host.browserUrl("acme/stamp", "v1.0.0", "stamp-1.0.0-fedcba98-linux-amd64"),
  );
  assert.equal(host.count("/repos/acme/stamp/git/matching-refs/"), refs);
  await assert.rejects(
    resolveTool(tool("stamp", "1.0.1", stamp), context(["linux/amd64"])),
    /no published stable release/,
  );
});

test("a missing asset lists what the release has; an asset name carried twice is refused", async () => {
  host.addRepo("acme/twice");
  host.addRelease("acme/twice", {
    tag: "v1.0.0",
    assets: [
      { name: "twice-linux-amd64", data: Buffer.from("a") },
      { name: "twice-linux-amd64", data: Buffer.from("b") },
      { name: "twice-checksums.txt", data: Buffer.from("c") },
    ],
  });
  const twice = { type: "github_release", repo: "acme/twice", asset: "twice-{os}-{arch}", bin: ["twice"] };
  await assert.rejects(
    resolveTool(tool("twice", "1", twice), context(["linux/amd64"])),
    /carries the asset "twice-linux-amd64" 2 times/,
  );
  await assert.rejects(
    resolveTool(tool("twice", "1", twice), context(["darwin/arm64"])),
    /has no asset "twice-darwin-arm64" \(it has: twice-checksums\.txt, twice-linux-amd64, twice-linux-amd64\)/,
  );
});
