import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, TOOLS, toolVersion } from "./support/release-files.js";
import { run } from "./support/run.js";

// Issue 33 item 1: each tool's version output names the version of its release files, which npm pack takes from
// package.json. The release script refuses to build when they differ; this runs that check in `npm test`, so a
// version bumped on one side only fails here first. Needs only Node (the tools are built by `npm test`).

test("every tool prints the version its package.json (and so its release file names) carries", async () => {
  const result = await run(process.execPath, [join(REPO, "scripts", "release.mjs"), "--check-versions"], {
    timeoutMs: 60_000,
  });
  assert.equal(result.code, 0, result.stderr);
  const expected = TOOLS.map((tool) => `${tool} ${toolVersion(tool)}`);
  assert.deepEqual(result.stdout.trim().split("\n"), expected);
});

test("webhook and pushgateway carry the upstream version they are drop-ins for, in upstream's output format", async () => {
  // Scripts parse these lines: adnanh/webhook prints "webhook version X", prometheus/common's version.Print
  // "pushgateway, version X (branch: ..., revision: ...)".
  const webhook = await run(
    process.execPath,
    [join(REPO, "packages", "webhook", "bin", "webhook.js"), "-version"],
    {
      timeoutMs: 30_000,
    },
  );
  assert.match(webhook.stdout, /^webhook version 2\.8\.\d+\n$/);
  const gateway = await run(
    process.execPath,
    [join(REPO, "packages", "pushgateway", "bin", "pushgateway.js"), "--version"],
    { timeoutMs: 30_000 },
  );
  assert.match(gateway.stdout, /^pushgateway, version 1\.\d+\.\d+ \(branch: [^,]*, revision: [^)]*\)\n/);
});

test("the Install sections and the compose file name the files and images of the current versions", () => {
  const read = (...path: string[]) => readFileSync(join(REPO, ...path), "utf8");
  const install = (text: string) => {
    const start = text.indexOf("## Install\n");
    assert.ok(start >= 0, "no Install section");
    const end = text.indexOf("\n## ", start + 1);
    return text.slice(start, end < 0 ? undefined : end);
  };
  const root = install(read("README.md"));
  for (const tool of TOOLS) {
    const version = toolVersion(tool);
    const mine = install(read("packages", tool, "README.md"));
    for (const section of [root, mine]) {
      // Every x.y.z a section names next to the tool is this version.
      for (const [, named] of section.matchAll(new RegExp(`${tool}[-:](\\d+\\.\\d+\\.\\d+)`, "g"))) {
        assert.equal(
          named,
          version,
          `${tool} ${named} named in an Install section, package.json says ${version}`,
        );
      }
    }
    assert.match(mine, new RegExp(`${tool}-${version.replaceAll(".", "\\.")}\\.tgz`));
  }
  const gateway = toolVersion("pushgateway");
  for (const text of [
    read("packages", "pushgateway", "docs", "docker-compose.yml"),
    read("packages", "pushgateway", "docs", "ha.md"),
  ]) {
    for (const [, named] of text.matchAll(/localhost\/pushgateway:(\d+\.\d+\.\d+)/g))
      assert.equal(named, gateway);
  }
});
