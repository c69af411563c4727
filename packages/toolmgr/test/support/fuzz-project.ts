import type { Random } from "./fuzz-random.js";

// Generators of toolmgr.toml texts for the property fuzzer (test/cli-fuzz.test.ts): mostly well-formed projects
// around one project-local tool `fz` from the fuzzed host's `acme/fz`, with values drawn from every form the spec
// names, their near misses, and names spelled like Object.prototype's properties; then, sometimes, a broken text.

const PROTO_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

/** Version strings: every form of the spec (Version forms), the limits of its rules, and near misses. */
export function versionText(rng: Random, commit: string): unknown {
  return rng.pick<() => unknown>([
    () => rng.pick(["1", "1.2", "1.2.3", "2", "1.0", "0", "2.0.0", "1.2.0"]),
    () => "1.2.3-rc.1",
    () => "nightly",
    () => `nightly-${commit.slice(0, rng.pick([7, 8, 12, 40]))}`,
    () => `nightly-${commit}${rng.hex(24)}`, // 64 hex: the longest commit
    () => `nightly-${rng.hex(65)}`,
    () => `nightly-${rng.hex(6)}`, // 6 hex: a channel named so, not a commit
    () => `nightly-${rng.hex(7).toUpperCase()}`,
    () =>
      rng.pick(["v1", "^1", "~1.2", ">=1", "1.x", "*", "01", "1.02", "1.2.3.4", "", " 1", "1 ", "1.2.3-"]),
    () => rng.pick(["1.2.3-rc..1", "1.2.3+build", "1,2", "1 || 2", "latest", "stable", "pre-release"]),
    () => rng.pick(["a".repeat(32), "b".repeat(33), `${"c".repeat(32)}-${commit.slice(0, 7)}`]),
    () => rng.pick(PROTO_NAMES),
    () => rng.pick(["a..b", ".hidden", "-x", "ñightly", "nightly\n", "1\r\n", "x/y", "..", "NaN", "1e3"]),
    () => rng.pick(["9999999999999999999999", "1.99999999999999999999", "nightly-\u0000abcdef0"]),
    () => rng.pick([1, 1.5, true, ["1"], { version: "1" }]),
  ])();
}

/** A TOML value: strings as basic strings (JSON's escapes are TOML's), arrays and inline tables. */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return `{ ${entries.join(", ")} }`;
  }
  return '""';
}

/** A key, bare when TOML allows it, else quoted. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A file name ending the fuzzed host's releases carry, for an archive generated as `ending`. */
export interface ProjectShape {
  /** The asset file name ending (`.tar.gz`, `""` for a raw executable, ...). */
  readonly ending: string;
  /** The executables the archive holds (the `bin` a good project names). */
  readonly bins: readonly string[];
  /** Wrapping directory levels in the archive. */
  readonly strip: number;
  /** The fuzzed host's API origin (an `http` source may point at it). */
  readonly apiUrl: string;
  readonly commit: string;
}

/**
 * A project file: with `clean`, one that locks against a good host (so the host's answers, the archive and the lock's
 * edits are what is fuzzed); else with values drawn from the odd pools.
 */
export function projectText(rng: Random, shape: ProjectShape, options: { clean: boolean }): string {
  const odd = (p: number) => !options.clean && rng.chance(p);
  const lines: string[] = [];
  // Top level, before [tools] (TOML puts every later key into the table above it).
  const platforms = odd(0.1)
    ? rng.pick<unknown>([
        [],
        ["linux/amd64", "linux/amd64"],
        ["plan9/amd64"],
        "linux/amd64",
        ["constructor"],
        [1],
      ])
    : rng.pick([["linux/amd64"], ["linux/amd64", "darwin/arm64"], ["darwin/amd64", "linux/amd64"]]);
  if (!odd(0.05)) lines.push(`platforms = ${tomlValue(platforms)}`);
  if (odd(0.15)) {
    const age = rng.pick<unknown>(["7d", "0", "36h", "90m", "7w", 7, "-7d", "1.5d", "3651d", "0d", "", "1d"]);
    lines.push(`min_release_age = ${tomlValue(age)}`);
  }
  if (odd(0.04)) lines.push(rng.pick(["foo = 1", "__proto__ = 1", 'constructor = "x"', "toString = []"]));
  lines.push("", "[tools]");
  if (odd(0.12)) {
    const name = rng.pick([...PROTO_NAMES, "foundry", "Fz", "fz.cli", "-fz", "", "a".repeat(200), "ünï"]);
    lines.push(`${tomlKey(name)} = ${tomlValue(versionText(rng, shape.commit))}`);
  }
  const version = odd(0.3) ? versionText(rng, shape.commit) : rng.pick(["1", "1.2", "1.2.3", "nightly"]);
  // The project-local tool: mostly `fz`, sometimes a name spelled like an Object.prototype property or with dots.
  const tool = rng.pick(["fz", "fz", "fz", "fz", "fz", "constructor", "fz.cli", "f-z_9"]);
  lines.push("", `[tools.${tomlKey(tool)}]`, `version = ${tomlValue(version)}`);
  if (odd(0.08)) lines.push(`min_release_age = ${tomlValue(rng.pick<unknown>(["0", "2d", "x", 0]))}`);
  if (odd(0.03)) lines.push(`${rng.pick(["command", "post_install", "constructor"])} = "sh -c id"`);
  lines.push("", `[tools.${tomlKey(tool)}.source]`, ...sourceLines(rng, shape, odd));
  if (options.clean || !odd(0.3)) {
    const channel = odd(0.15) ? rng.pick([...PROTO_NAMES, "x".repeat(33), "night ly", "a..b"]) : "nightly";
    lines.push("", `[tools.${tomlKey(tool)}.source.channels.${tomlKey(channel)}]`);
    const asset = odd(0.1) ? rng.pick(["", "{nope}", "a/b"]) : `fz-nightly-{os}-{arch}${shape.ending}`;
    lines.push(`asset = ${tomlValue(asset)}`);
    if (odd(0.05)) lines.push('url = "https://example.com/x"');
  }
  let text = `${lines.join("\n")}\n`;
  if (odd(0.12)) text = breakText(rng, text);
  return text;
}

function sourceLines(rng: Random, shape: ProjectShape, odd: (p: number) => boolean): string[] {
  const out: string[] = [];
  const http = odd(0.1);
  const type = odd(0.04)
    ? rng.pick<unknown>(["GitHub_release", "", 1, "shell", "http"])
    : http
      ? "http"
      : "github_release";
  out.push(`type = ${tomlValue(type)}`);
  const repo = odd(0.06)
    ? rng.pick(["acme/fz/x", "./x", "a/..", "acme", "constructor/__proto__", "acme/fz ", "acme/f z", ""])
    : "acme/fz";
  out.push(`repo = ${tomlValue(repo)}`);
  const useTarget = odd(0.15);
  const file = useTarget ? `fz-{version}-{target}${shape.ending}` : `fz-{version}-{os}-{arch}${shape.ending}`;
  const template = odd(0.12)
    ? rng.pick([
        "{foo}",
        "fz-{version",
        "fz-}{version}",
        "a/b",
        "",
        `fz-{commit}-{os}-{arch}${shape.ending}`,
        "{{version}}",
        "fz-{VERSION}",
        `fz-{version}-{os}-{arch}{version}${shape.ending}`,
        "https://github.com/acme/fz/{version}",
        "http://example.invalid/{version}/x",
        "ftp://127.0.0.1/{version}",
        `${shape.apiUrl}/dl/static/fz.tar.gz`,
      ])
    : http
      ? `${shape.apiUrl}/dl/v{version}/${file}`
      : file;
  out.push(`${http || odd(0.03) ? "url" : "asset"} = ${tomlValue(template)}`);
  const bin = odd(0.12)
    ? rng.pick<unknown>([
        ["fz", "fz"],
        [],
        "fz",
        ["../fz"],
        ["/fz"],
        ["fz/"],
        ["$(id)"],
        ["FZ", "fz"],
        ["a".repeat(300)],
        [1],
        ["bin/./fz"],
        ["constructor"],
        ["fz.exe", "fz"],
      ])
    : [...shape.bins];
  out.push(`bin = ${tomlValue(bin)}`);
  if (odd(0.1))
    out.push(`tag_prefix = ${tomlValue(rng.pick<unknown>(["v", "", "release-", " v", "..", "v\\", 1]))}`);
  if (odd(0.12)) {
    const platforms = rng.pick<unknown>([
      ["linux/amd64"],
      [],
      ["linux/amd64", "linux/amd64"],
      ["plan9/amd64"],
      "linux/amd64",
      ["constructor"],
      ["darwin/arm64"],
    ]);
    out.push(`platforms = ${tomlValue(platforms)}`);
  }
  const strip = odd(0.1)
    ? rng.pick(["-1", "17", "1.5", '"1"', "99999999999999999999", "3", "0x1", "inf", "nan"])
    : String(shape.strip);
  if (strip !== "0" || odd(0.3)) out.push(`strip_components = ${strip}`);
  if (useTarget || odd(0.05)) {
    const triples = {
      "linux/amd64": "x86_64-unknown-linux-gnu",
      "linux/arm64": "aarch64-unknown-linux-gnu",
      "darwin/amd64": "x86_64-apple-darwin",
      "darwin/arm64": "aarch64-apple-darwin",
    };
    const target = odd(0.3)
      ? rng.pick<unknown>([
          { "linux/amd64": "x" },
          { constructor: "x" },
          Object.fromEntries([["__proto__", "x"]]),
          "str",
          { "linux/amd64": "" },
        ])
      : triples;
    out.push(`target = ${tomlValue(target)}`);
  }
  if (odd(0.12)) {
    const key = rng.pick(["os", "arch"]);
    const value = rng.pick<unknown>([
      { linux: "Linux" },
      { amd64: "x86_64" },
      { constructor: "x" },
      Object.fromEntries([["__proto__", "x"]]),
      { toString: "x" },
      { linux: "" },
      { linux: 1 },
      "linux",
    ]);
    out.push(`${key} = ${tomlValue(value)}`);
  }
  if (odd(0.04))
    out.push(
      `overrides = ${tomlValue(rng.pick<unknown>(["x", [{ versions: "1" }], [{ versions: "constructor", bin: ["x"] }]]))}`,
    );
  if (odd(0.03)) out.push(`${rng.pick(["install", "script", "hooks"])} = "curl | sh"`);
  return out;
}

/** A broken variant of a text: a duplicated line or table, a truncation, a stray byte, CRLF, a BOM. */
export function breakText(rng: Random, text: string): string {
  const lines = text.split("\n");
  const at = rng.int(0, Math.max(0, lines.length - 1));
  switch (rng.int(0, 7)) {
    case 0:
      lines.splice(at, 0, lines[at] ?? "");
      return lines.join("\n");
    case 1:
      return text.slice(0, rng.int(0, text.length));
    case 2:
      return `${text.slice(0, at)}${rng.pick(['"', "[", "]", "=", "\u0000", "\u202e", "\ufffd", "\\"])}${text.slice(at)}`;
    case 3:
      return text.replace(/\n/g, "\r\n");
    case 4:
      return `\ufeff${text}`;
    case 5:
      return `${text}\n[tools]\nfz = "1"\n`;
    case 6:
      return text.replace(/=/, "==");
    default:
      return `${text}\n[tools.fz]\nversion = "2"\n`;
  }
}
