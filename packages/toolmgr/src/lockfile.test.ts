import assert from "node:assert/strict";
import { test } from "node:test";
import { LockfileError } from "./errors.js";
import { formatLockfile, type Lockfile, lockedArtifact, parseLockfile } from "./lockfile.js";

const digest = "a".repeat(64);

const lock: Lockfile = {
  version: 1,
  tools: [
    {
      name: "solc",
      constraint: "0.8",
      version: "0.8.30",
      bin: ["solc"],
      stripComponents: 0,
      artifacts: [
        { platform: "linux/arm64", url: "https://example.com/solc-arm64", sha256: digest },
        { platform: "darwin/arm64", url: "https://example.com/solc-mac", sha256: digest },
      ],
    },
    {
      name: "foundry",
      constraint: "nightly",
      version: "nightly-0123456789abcdef0123456789abcdef01234567",
      bin: ["forge", "cast"],
      stripComponents: 1,
      source: `sha256:${"b".repeat(64)}`,
      artifacts: [
        {
          platform: "linux/amd64",
          url: "https://example.com/f.tar.gz",
          sha256: digest,
          apiUrl: "https://api.example.com/repos/o/r/releases/assets/1",
        },
      ],
    },
  ],
};

test("formatLockfile() is deterministic and sorted; parseLockfile() reads it back", () => {
  const text = formatLockfile(lock);
  assert.equal(formatLockfile(parseLockfile(text)), text);
  assert.ok(text.indexOf('name = "foundry"') < text.indexOf('name = "solc"'));
  assert.ok(text.indexOf('"darwin/arm64"') < text.indexOf('"linux/arm64"'));
  assert.match(text, /^version = 1$/m);
  assert.match(text, /^strip_components = 1$/m);
  assert.match(text, /^api_url = "https:\/\/api\.example\.com/m);
  assert.equal((text.match(/strip_components/g) ?? []).length, 1, "a zero strip_components is not written");
  const parsed = parseLockfile(text);
  assert.equal(
    parsed.tools[0] && lockedArtifact(parsed.tools[0], "linux/amd64")?.apiUrl,
    lock.tools[1]?.artifacts[0]?.apiUrl,
  );
});

test("parseLockfile() rejects a lock that could do harm or is not ours", () => {
  const base = formatLockfile(lock);
  const cases: [string, RegExp][] = [
    [base.replace("version = 1", "version = 2"), /unsupported format version 2/],
    [base.replace(`sha256 = "${digest}"`, `sha256 = "${"A".repeat(64)}"`), /64 lower-case hex/],
    [base.replace('bin = ["solc"]', 'bin = ["../../bin/sh"]'), /Invalid executable path/],
    [base.replace("https://example.com/solc-mac", "http://example.com/solc-mac"), /not an https URL/],
    [base.replace('platform = "linux/arm64"', 'platform = "plan9/arm"'), /unknown platform "plan9\/arm"/],
    [base.replace('name = "solc"', 'name = "foundry"'), /appears twice/],
    [base.replace('version = "0.8.30"', 'version = "../x"'), /invalid version/],
    [`${base}\n[extra]\n`, /unknown key "extra"/],
    ["version = [", /Cannot parse lock/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseLockfile(text),
      (e: unknown) => e instanceof LockfileError && message.test(e.message),
    );
  }
});

test("parseLockfile() allows plain http on loopback only", () => {
  const text = formatLockfile(lock).replace("https://example.com/solc-mac", "http://127.0.0.1:8080/solc-mac");
  assert.equal(parseLockfile(text).tools[1]?.artifacts[0]?.url, "http://127.0.0.1:8080/solc-mac");
});
