import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE_DIR, runCli } from "./support/run-cli.js";

const fixtures = join(PACKAGE_DIR, "test/fixtures/registry/lint");

test("toolmgr lint-registry passes on the embedded registry and its README totals", async () => {
  const { code, stdout, stderr } = await runCli(["lint-registry", PACKAGE_DIR]);
  assert.equal(stderr, "");
  assert.equal(code, 0);
  assert.equal(stdout, "registry ok: 51 recipes\n");
});

test("toolmgr lint-registry passes on a minimal valid registry", async () => {
  const { code } = await runCli(["lint-registry", join(fixtures, "valid")]);
  assert.equal(code, 0);
});

// One fixture per rule, each breaking exactly that rule.
const cases: [string, RegExp][] = [
  ["missing-key", /registry\/a\.toml.*expected a table, got nothing/],
  ["file-name", /name "good" must equal the file name/],
  ["unknown-placeholder", /unknown placeholder \{cpu\}/],
  [
    "override-overlap",
    /overrides\[1\] versions "1\.2" overlaps overrides\[0\] versions "1"; the first match applies/,
  ],
  [
    "override-unknown-key",
    /overrides\[0\]: unknown key "assets" \(an override sets "versions" and any of: asset, bin/,
  ],
  ["bad-platform", /unknown platform "linux\/riscv64"/],
  ["target-undefined", /\{target\} is used but not defined for darwin\/arm64/],
  ["channel-asset", /channels\.nightly": unknown key "url"/],
  ["http-host", /host "downloads\.example\.org" is not in policy\/hosts\.toml for "o\/good"/],
  ["code-host", /"github\.com" is a code-hosting host/],
  ["duplicate-command", /command "good" is provided by both "good" and "other"/],
  ["unknown-ecosystem", /unknown ecosystem "dogecoin"/],
  ["long-description", /description must be one sentence under 100 characters/],
  ["two-sentences", /description must be one sentence under 100 characters/],
  // The host is in the policy, but for bitcoin/bitcoin: a host serves exactly one repository.
  ["policy-repo", /host "bitcoincore\.org" is not in policy\/hosts\.toml for "o\/good"/],
  [
    "totals",
    /README states 51 recipes, 17 ecosystems, 48 github_release, 3 http; the registry has 1, 1, 1, 0/,
  ],
];

for (const [rule, message] of cases) {
  test(`toolmgr lint-registry fails on the "${rule}" fixture`, async () => {
    const { code, stderr } = await runCli(["lint-registry", join(fixtures, rule)]);
    assert.equal(code, 1);
    assert.match(stderr, message);
    assert.match(stderr, /toolmgr: registry has 1 problem\n$/);
  });
}
