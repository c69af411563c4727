import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO } from "./support/release-files.js";
import { run } from "./support/run.js";

// Issue 33 item 1: each tool's version output names the version of its release files, which npm pack takes from
// package.json. The release script refuses to build when they differ; this runs that check in `npm test`, so a
// version bumped on one side only fails here first. Needs only Node (the tools are built by `npm test`).
const TOOLS = ["toolmgr", "webhook", "pushgateway", "bootstatus"];

test("every tool prints the version its package.json (and so its release file names) carries", async () => {
  const result = await run(process.execPath, [join(REPO, "scripts", "release.mjs"), "--check-versions"], {
    timeoutMs: 60_000,
  });
  assert.equal(result.code, 0, result.stderr);
  const expected = TOOLS.map((tool) => {
    const { version } = JSON.parse(readFileSync(join(REPO, "packages", tool, "package.json"), "utf8")) as {
      version: string;
    };
    return `${tool} ${version}`;
  });
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
