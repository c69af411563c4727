import assert from "node:assert/strict";
import { test } from "node:test";
import { detectPlatform, parsePlatform, platformArch, platformOs, tryParsePlatform } from "./platform.js";

test("parsePlatform() accepts the supported set only", () => {
  assert.equal(parsePlatform("windows/arm64"), "windows/arm64");
  assert.equal(tryParsePlatform("linux/386"), undefined);
  assert.throws(() => parsePlatform("linux"), /Unknown platform "linux": expected one of linux\/amd64/);
});

test("platformOs() and platformArch() split a platform", () => {
  assert.equal(platformOs("darwin/arm64"), "darwin");
  assert.equal(platformArch("darwin/arm64"), "arm64");
});

test("detectPlatform() maps Node's names to Go's", () => {
  assert.equal(detectPlatform({ platform: "linux", arch: "x64" }), "linux/amd64");
  assert.equal(detectPlatform({ platform: "win32", arch: "arm64" }), "windows/arm64");
  assert.equal(detectPlatform({ platform: "freebsd", arch: "x64" }), undefined);
});
