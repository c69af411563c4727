import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesPrefix, parseConstraint, parseStableTag } from "./constraint.js";

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
  assert.deepEqual(parseStableTag("v1.20.0", "v"), [1, 20, 0]);
  assert.equal(parseStableTag("v1.2.3-rc.1", "v"), undefined);
  assert.equal(parseStableTag("nightly-abc", "v"), undefined);
  assert.deepEqual(parseStableTag("aptos-cli-v7.1.0", "aptos-cli-v"), [7, 1, 0]);
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
