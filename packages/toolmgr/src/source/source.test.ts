import assert from "node:assert/strict";
import { test } from "node:test";
import { SourceError } from "../errors.js";
import { checkBinPath, checkChannelName } from "../safe-names.js";
import { renderTemplate } from "./asset-template.js";
import { sourceFingerprint } from "./fingerprint.js";
import { parseSource } from "./source.js";

const foundry = {
  type: "github_release",
  repo: "foundry-rs/foundry",
  asset: "foundry_v{version}_{os}_{arch}.tar.gz",
  bin: ["forge", "cast"],
  channels: { nightly: { asset: "foundry_nightly_{os}_{arch}.tar.gz" } },
};

test("parseSource() applies the peer's defaults", () => {
  const source = parseSource(foundry, "test");
  assert.equal(source.tagPrefix, "v");
  assert.equal(source.stripComponents, 0);
  assert.deepEqual(source.platforms, ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"]);
  assert.equal(source.channels.nightly?.template, "foundry_nightly_{os}_{arch}.tar.gz");
});

test("parseSource() defaults platforms to the keys of target", () => {
  const source = parseSource(
    {
      ...foundry,
      asset: "aptos-cli-{version}-{target}.zip",
      target: { "windows/amd64": "Windows-x86_64", "linux/amd64": "Linux-x86_64" },
    },
    "test",
  );
  assert.deepEqual(source.platforms, ["linux/amd64", "windows/amd64"]);
});

test("parseSource() rejects bad definitions with the key that is wrong", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...foundry, type: "script" }, /"type" must be "github_release" or "http"/],
    [{ ...foundry, repo: "foundry" }, /"repo" must look like "owner\/name"/],
    [{ ...foundry, asest: "x" }, /unknown key "asest"/],
    [{ ...foundry, asset: "tool-{vers}.tar.gz" }, /unknown placeholder \{vers\}/],
    [
      {
        ...foundry,
        asset: "tool-{target}.tar.gz",
        platforms: ["linux/amd64", "darwin/arm64"],
        target: { "linux/amd64": "x" },
      },
      /\{target\} is used but not defined/,
    ],
    [{ ...foundry, platforms: ["linux/riscv64"] }, /unknown platform "linux\/riscv64"/],
    [{ ...foundry, bin: [] }, /"bin" must be a non-empty array/],
    [{ ...foundry, bin: ["../evil"] }, /Invalid executable path "..\/evil"/],
    [{ ...foundry, bin: ["/usr/bin/evil"] }, /Invalid executable path/],
    [{ ...foundry, strip_components: -1 }, /"strip_components" must be an integer/],
    [{ ...foundry, channels: { "../x": { asset: "a" } } }, /Invalid channel "..\/x"/],
    [{ ...foundry, os: { plan9: "p9" } }, /unknown key "plan9"/],
    [{ ...foundry, url: "https://example.com/x" }, /"url" is not a key of type "github_release"/],
  ];
  for (const [raw, message] of cases) {
    assert.throws(
      () => parseSource(raw, "test"),
      (e: unknown) => e instanceof SourceError && message.test(e.message),
    );
  }
});

test("parseSource() accepts http sources on https only and never on a code-hosting host", () => {
  const http = {
    type: "http",
    repo: "bitcoin/bitcoin",
    url: "https://bitcoincore.org/bin/{version}.tar.gz",
    bin: ["b"],
  };
  assert.equal(parseSource(http, "test").template, http.url);
  assert.throws(
    () => parseSource({ ...http, url: "http://bitcoincore.org/{version}" }, "test"),
    /must use https/,
  );
  assert.throws(
    () =>
      parseSource(
        { ...http, url: "https://github.com/bitcoin/bitcoin/releases/download/{version}/b" },
        "test",
      ),
    /code-hosting host/,
  );
  assert.throws(
    () => parseSource({ ...http, url: "https://objects.githubusercontent.com/{version}" }, "test"),
    /code-hosting host/,
  );
});

test("renderTemplate() substitutes renames, target and commit", () => {
  const source = parseSource(
    {
      type: "github_release",
      repo: "o/r",
      asset: "t-{version}-{arch}-{os}-{target}-{commit}",
      bin: ["t"],
      os: { linux: "unknown-linux-gnu" },
      arch: { amd64: "x86_64" },
      target: { "linux/amd64": "L64", "darwin/arm64": "M1" },
    },
    "test",
  );
  assert.equal(
    renderTemplate(source.template, source, {
      version: "1.2.3",
      platform: "linux/amd64",
      commit: "abcdef12",
    }),
    "t-1.2.3-x86_64-unknown-linux-gnu-L64-abcdef12",
  );
  assert.equal(
    renderTemplate(source.template, source, {
      version: "1.2.3",
      platform: "darwin/arm64",
      commit: "abcdef12",
    }),
    "t-1.2.3-arm64-darwin-M1-abcdef12",
  );
  assert.throws(
    () => renderTemplate(source.template, source, { version: "1", platform: "darwin/arm64" }),
    /no commit/,
  );
});

test("sourceFingerprint() ignores spelled-out defaults and key order, not real changes", () => {
  const a = sourceFingerprint(parseSource(foundry, "a"));
  const b = sourceFingerprint(parseSource({ tag_prefix: "v", strip_components: 0, ...foundry }, "b"));
  const c = sourceFingerprint(parseSource({ ...foundry, strip_components: 1 }, "c"));
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
  assert.equal(a, b);
  assert.notEqual(a, c);
});

test("checkChannelName() allows up to 32 safe characters", () => {
  checkChannelName("nightly", "t");
  checkChannelName("pre-release", "t");
  checkChannelName("a".repeat(32), "t");
  for (const bad of ["", "a".repeat(33), "a/b", "a\\b", "..", "a..b", ".hidden", "-x"]) {
    assert.throws(() => checkChannelName(bad, "t"), SourceError, bad);
  }
});

test("checkBinPath() keeps executables inside their install directory", () => {
  checkBinPath("bin/solana", "t");
  for (const bad of ["", "/abs", "a/../b", "./a", "a//b", "C:/x", "a\\b"]) {
    assert.throws(() => checkBinPath(bad, "t"), SourceError, bad);
  }
});
