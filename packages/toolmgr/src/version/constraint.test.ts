import assert from "node:assert/strict";
import { test } from "node:test";
import {
  constraintAllows,
  matchesPrefix,
  newestFirst,
  parseConstraint,
  parseStableTag,
  parseTagVersion,
} from "./constraint.js";

test("parseConstraint() reads the four version forms", () => {
  assert.deepEqual(parseConstraint("1", "t"), { kind: "prefix", text: "1", parts: [1] });
  assert.deepEqual(parseConstraint("1.2.3", "t"), { kind: "prefix", text: "1.2.3", parts: [1, 2, 3] });
  assert.deepEqual(parseConstraint("1.2.3-rc.1", "t"), { kind: "prerelease", text: "1.2.3-rc.1" });
  assert.deepEqual(parseConstraint("nightly", "t"), { kind: "channel", text: "nightly", channel: "nightly" });
  assert.deepEqual(parseConstraint("nightly-abcdef1", "t"), {
    kind: "channel-commit",
    text: "nightly-abcdef1",
    channel: "nightly",
    commit: "abcdef1",
  });
});

test("parseConstraint() keeps a hyphenated non-hex suffix in the channel's name (rule 1)", () => {
  assert.deepEqual(parseConstraint("pre-release", "t"), {
    kind: "channel",
    text: "pre-release",
    channel: "pre-release",
  });
  assert.equal(parseConstraint("nightly-ABCDEF1", "t").kind, "channel", "upper-case hex is not a commit");
  assert.equal(parseConstraint("nightly-abc12", "t").kind, "channel", "six digits are too few");
});

test("parseConstraint() refuses ranges, operators and unsafe channel names", () => {
  for (const bad of [
    "^1.2",
    ">=1",
    "1.x",
    "1.2.3.4",
    "01.2",
    "a/b",
    "..",
    "x".repeat(33),
    "nightly/../../etc",
  ]) {
    assert.throws(() => parseConstraint(bad, "tool"), /tool/, bad);
  }
});

test("parseStableTag() and matchesPrefix() compare whole components", () => {
  assert.deepEqual(parseStableTag("v1.20.0", "v")?.parts, [1, 20, 0]);
  assert.equal(parseStableTag("v1.2.3-rc.1", "v"), undefined);
  assert.equal(parseStableTag("nightly-abc", "v"), undefined);
  assert.deepEqual(parseStableTag("aptos-cli-v7.1.0", "aptos-cli-v")?.parts, [7, 1, 0]);
  assert.equal(matchesPrefix([1, 20, 0], [1, 2]), false);
  assert.equal(matchesPrefix([1, 2, 9], [1, 2]), true);
});

test("parseConstraint() takes 7 to 64 lower-case hex digits as the commit, and channels up to 32 characters", () => {
  const full = "a".repeat(64);
  assert.deepEqual(parseConstraint(`nightly-${full}`, "t"), {
    kind: "channel-commit",
    text: `nightly-${full}`,
    channel: "nightly",
    commit: full,
  });
  assert.throws(
    () => parseConstraint(`nightly-${full}a`, "t"),
    /t/,
    "65 digits are a (too long) channel name",
  );
  assert.equal(parseConstraint("c".repeat(32), "t").kind, "channel");
  assert.equal(parseConstraint("pre-release-0123abcd", "t").kind, "channel-commit");
  assert.throws(() => parseConstraint("v1.2.3", "tool"), /no leading "v"/);
  assert.throws(() => parseConstraint("1.2 || 1.3", "tool"), /ranges and operators are not supported/);
  assert.throws(() => parseConstraint("a\\b", "tool"), /tool/);
});

test("constraintAllows() holds what the constraint can select and nothing else", () => {
  const allows = (c: string, v: string) => constraintAllows(parseConstraint(c, "t"), v);
  assert.equal(allows("1", "1.4.0"), true);
  assert.equal(allows("1.2", "1.2.9"), true);
  assert.equal(allows("1.2", "1.20.0"), false, "whole components");
  assert.equal(allows("1", "2.0.0"), false);
  assert.equal(allows("1", "1.0.0-"), false, "an empty pre-release is no version");
  assert.equal(allows("1", "1.0.0-rc.1"), false, "a prefix never holds a pre-release");
  assert.equal(allows("1.2.3", "1.2.3"), true);
  assert.equal(allows("1.2.3-rc.1", "1.2.3-rc.1"), true);
  assert.equal(allows("1.2.3-rc.1", "1.2.3"), false);
  assert.equal(allows("nightly", `nightly-${"a".repeat(40)}`), true);
  assert.equal(allows("nightly", "nightly"), false, "never the moving tag itself");
  assert.equal(allows("nightly", "nightly-zz12345"), false);
  assert.equal(allows("pre-release", `pre-release-${"b".repeat(7)}`), true);
  assert.equal(allows("nightly-abcdef0", "nightly-abcdef0"), true);
  assert.equal(allows("nightly-abcdef0", `nightly-${"a".repeat(40)}`), false);
});

// Issue 31 item 1, after nao1215/block internal/version/version_test.go: upstreams are not uniformly semver.
test("parseTagVersion() reads two-component tags as patch 0 and a bare alphabetic suffix as a pre-release", () => {
  assert.deepEqual(parseTagVersion("v29.0", "v"), { text: "29.0", parts: [29, 0, 0], pre: undefined });
  assert.deepEqual(parseTagVersion("v29.1rc1", "v"), { text: "29.1rc1", parts: [29, 1, 0], pre: "rc1" });
  assert.deepEqual(parseTagVersion("v1.8.0-rc.1", "v"), {
    text: "1.8.0-rc.1",
    parts: [1, 8, 0],
    pre: "rc.1",
  });
  assert.deepEqual(parseTagVersion("v0.30.0rc2", "v")?.pre, "rc2");
  for (const bad of ["v29", "v1.2.3.4", "v01.2", "v1.2.3-", "v1.2rc1-beta", "nightly", "v1..2", "v1.2/3"]) {
    assert.equal(parseTagVersion(bad, "v"), undefined, bad);
  }
  assert.equal(parseStableTag("v29.1rc1", "v"), undefined, "a bare suffix is a pre-release");
  assert.equal(parseStableTag("v29.0", "v")?.text, "29.0", "the spelling is kept");
});

test("newestFirst() orders by number, then by spelling, whatever order the tags came in", () => {
  const tags = ["v27.2", "v29.0.0", "v28.1", "v29.0", "v28.0"].map((t) => parseStableTag(t, "v"));
  const sorted = tags.flatMap((t) => (t ? [t] : [])).sort(newestFirst);
  assert.deepEqual(
    sorted.map((t) => t.text),
    ["29.0.0", "29.0", "28.1", "28.0", "27.2"],
  );
});

test("constraintAllows() takes 29, 29.0 and 29.0.0 to allow the two-component 29.0, never 29.1rc1", () => {
  const allows = (c: string, v: string) => constraintAllows(parseConstraint(c, "t"), v);
  for (const c of ["29", "29.0", "29.0.0"]) assert.equal(allows(c, "29.0"), true, c);
  assert.equal(allows("29.1", "29.1rc1"), false);
  assert.equal(allows("29", "29.1rc1"), false);
  assert.equal(allows("29.0.1", "29.0"), false);
});
