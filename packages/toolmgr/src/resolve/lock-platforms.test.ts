import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolmgrError } from "../errors.js";
import type { Lockfile } from "../lockfile.js";
import { lockPlatforms } from "./lock-platforms.js";

const linux = { platform: "linux", arch: "x64" };
const lockFor = (...platforms: Lockfile["tools"][number]["artifacts"][number]["platform"][]): Lockfile => ({
  version: 1,
  tools: [
    {
      name: "t",
      constraint: "1",
      version: "1.0.0",
      bin: ["t"],
      stripComponents: 0,
      artifacts: platforms.map((platform) => ({ platform, url: "https://x/t", sha256: "0".repeat(64) })),
    },
  ],
});

test("lockPlatforms(): the project's list as given; else the lock's platforms plus this machine's, sorted", () => {
  assert.deepEqual(lockPlatforms(["darwin/arm64"], { existing: lockFor("linux/arm64"), runtime: linux }), [
    "darwin/arm64",
  ]);
  assert.deepEqual(lockPlatforms(undefined, { existing: lockFor("darwin/arm64"), runtime: linux }), [
    "darwin/arm64",
    "linux/amd64",
  ]);
  assert.deepEqual(lockPlatforms(undefined, { existing: undefined, runtime: linux }), ["linux/amd64"]);
});

test("lockPlatforms() refuses an unsupported machine with no list and no lock to go by", () => {
  assert.throws(
    () => lockPlatforms(undefined, { existing: undefined, runtime: { platform: "aix", arch: "ppc64" } }),
    (e) => e instanceof ToolmgrError && /Cannot lock for this machine \(aix\/ppc64\)/.test(e.message),
  );
  assert.deepEqual(
    lockPlatforms(undefined, {
      existing: lockFor("linux/amd64"),
      runtime: { platform: "aix", arch: "ppc64" },
    }),
    ["linux/amd64"],
  );
});
