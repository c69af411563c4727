import type { Random } from "./fuzz-random.js";

// Hand edits of a toolmgr.lock for the property fuzzer (test/cli-fuzz.test.ts): wrong types, path-like and
// prototype-like names, duplicated tools and artifacts, unknown platforms, URLs to other origins or schemes,
// truncation. A lock arrives through pull requests, so every edit must be refused clearly or be harmless.

const FIELDS = [
  "name",
  "constraint",
  "version",
  "bin",
  "strip_components",
  "source",
  "platform",
  "url",
  "sha256",
];

/** A replacement value (as TOML text) for a field of a lock. */
function oddValue(rng: Random, urls: { api: string; other: string }): string {
  return rng.pick([
    "1",
    "-1",
    "17",
    "1.5",
    "true",
    "[]",
    '["fz", "fz"]',
    "{}",
    '""',
    '"../../x"',
    '"/abs"',
    '"a/../../b"',
    '"constructor"',
    '"__proto__"',
    '"toString"',
    `"${"x".repeat(300)}"`,
    '"fz\\u0000"',
    '"plan9/amd64"',
    '"linux/amd64 "',
    `"${urls.other}/dl/x.tar.gz"`,
    '"http://example.invalid/x.tar.gz"',
    '"file:///etc/passwd"',
    '"javascript:alert(1)"',
    '"https://user:secret@127.0.0.1:1/x"',
    `"${"A".repeat(64)}"`,
    `"${"0".repeat(63)}"`,
    '"sha256:00"',
    '"1.2.3/../../.."',
    '["../../x"]',
    '["/abs"]',
    '["a/../../b"]',
    '["$(id)"]',
    '["fz", "FZ"]',
    '["bin/fz", "fz"]',
    '["C:/x"]',
    '["fz\\u0000"]',
    '"ä"',
    '"1.2.3\\n"',
    '"nightly-zzzzzzz"',
    "1979-05-27T07:32:00Z",
  ]);
}

/** One hand edit of `lock` (a text `toolmgr lock` wrote). */
export function editLock(rng: Random, lock: string, urls: { api: string; other: string }): string {
  const lines = lock.split("\n");
  switch (rng.int(0, 9)) {
    case 0:
    case 1:
    case 2: {
      // A field's value replaced.
      const field = rng.pick(FIELDS);
      const at = lines.findIndex((l) => l.startsWith(`${field} = `));
      if (at >= 0) lines[at] = `${field} = ${oddValue(rng, urls)}`;
      return lines.join("\n");
    }
    case 3: {
      // The tool's table twice (a bad merge), or one artifact twice.
      const table = rng.chance(0.5) ? "[[tools]]" : "[[tools.artifacts]]";
      const start = lines.indexOf(table);
      if (start < 0) return lock;
      let end = lines.findIndex((l, i) => i > start && l.startsWith("[["));
      if (end < 0) end = lines.length;
      return [...lines, "", ...lines.slice(start, end)].join("\n");
    }
    case 4:
      // An artifact for a platform toolmgr does not know, or for another origin, or a private one's api_url.
      return `${lock}\n[[tools.artifacts]]\nplatform = ${rng.pick(['"plan9/amd64"', '"windows/arm64"', '"constructor"'])}\nurl = "${urls.other}/dl/y.tar.gz"\nsha256 = "${"a".repeat(64)}"\n${rng.chance(0.5) ? `api_url = "${urls.other}/repos/acme/fz/releases/assets/1"\n` : ""}`;
    case 5:
      // An extra key, at the top or in the tool.
      return rng.chance(0.5)
        ? lock.replace(
            "version = 1\n",
            `version = 1\n${rng.pick(["__proto__ = 1", "constructor = 1", "foo = 1"])}\n`,
          )
        : lock.replace(
            "[[tools]]\n",
            `[[tools]]\n${rng.pick(["__proto__ = 1", "toString = 1", 'install = "sh"'])}\n`,
          );
    case 6:
      return lock.slice(0, rng.int(0, lock.length));
    case 7:
      return lock.replace(
        "version = 1",
        rng.pick(["version = 2", 'version = "1"', "version = 1.0", "version = 0"]),
      );
    case 8: {
      // The private repository's asset URL: on another origin, the token must never follow it there.
      const at = lines.findIndex((l) => l.startsWith("sha256 = "));
      if (at >= 0)
        lines.splice(
          at + 1,
          0,
          `api_url = "${rng.pick([urls.other, urls.api])}/repos/acme/fz/releases/assets/1"`,
        );
      return lines.join("\n");
    }
    default:
      return rng.chance(0.5) ? lock.replace(/\n/g, "\r\n") : `\ufeff${lock}`;
  }
}
