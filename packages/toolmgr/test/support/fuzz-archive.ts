import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { Random } from "./fuzz-random.js";
import { type TarEntry, writeTar } from "./tar-writer.js";
import { writeZip, type ZipEntry } from "./zip-writer.js";

// Artifacts for the property fuzzer (test/cli-fuzz.test.ts): a good archive holding the executable `fz` (wrapped in
// `strip` directories), to which hostile entries are sometimes added: `..`, absolute and drive paths, links out of
// the install (also a hard link to a symbolic link, which moves the link's relative target), duplicates, devices, a
// bin that is a directory, huge declared sizes, truncation.

/** An artifact and what a project must say to install it. */
export interface FuzzArtifact {
  readonly data: Buffer;
  /** The asset name ending that makes toolmgr unpack it as intended. */
  readonly ending: string;
  readonly bins: readonly string[];
  readonly strip: number;
  /** What was put in, for the failure message of a property. */
  readonly description: string;
}

const SCRIPT = "#!/bin/sh\necho fz\n";

/** Absolute paths an archive may try to write: none of them may exist after a case. */
export function absoluteProbe(seed: number): string {
  return `/tmp/toolmgr-fuzz-abs-${seed}`;
}

function wrapPrefix(strip: number): string {
  return Array.from({ length: strip }, (_, i) => `w${i}/`).join("");
}

function hostileTarEntries(rng: Random, prefix: string, seed: number): TarEntry[] {
  const file = (name: string, content = "evil\n"): TarEntry => ({ name, content, mode: 0o755 });
  return rng.pick<() => TarEntry[]>([
    () => [file(`${prefix}../../../../../../../../escaped-${seed}`)],
    () => [file(`${absoluteProbe(seed)}`)],
    () => [file(`${prefix}C:/x`), file(`${prefix}\\\\srv\\share\\x`)],
    () => [file(`${prefix}a\\..\\..\\..\\x`)],
    () => [
      {
        name: `${prefix}lnk`,
        type: "symlink",
        linkname: rng.pick(["/etc/passwd", "../../../../../outside", "..", ".", "fz", "sub", "a/../../x"]),
      },
    ],
    () => [
      {
        name: `${prefix}hl`,
        type: "hardlink",
        linkname: rng.pick([`${prefix}fz`, "fz", "../x", "nonexistent", "/etc/passwd", ""]),
      },
    ],
    // A symbolic link that stays inside where it is, hard-linked to where its relative target leaves the install.
    () => [
      { name: `${prefix}a/`, type: "directory" },
      { name: `${prefix}a/b/`, type: "directory" },
      { name: `${prefix}a/b/s`, type: "symlink", linkname: "../../fz" },
      { name: `${prefix}h`, type: "hardlink", linkname: `${prefix}a/b/s` },
    ],
    () => [
      { name: `${prefix}sub/`, type: "directory" },
      { name: `${prefix}l2`, type: "symlink", linkname: "sub" },
      file(`${prefix}l2/x`),
    ],
    () => [file(`${prefix}fz`)],
    () => [file(`${prefix}./fz`)],
    () => [file(`${prefix}FZ`)],
    () => [{ name: `${prefix}dev`, type: "char" }],
    () => [{ name: `${prefix}pipe`, type: "fifo" }],
    () => [file(`${prefix}${"n".repeat(99 - prefix.length)}`)],
    () => [{ name: "", type: "file", content: "x" }],
    () => [{ name: `${prefix}lnk`, type: "symlink", linkname: "" }],
  ])();
}

/** A tar whose first file declares `size` bytes but holds a few: a size no archive can have in the bytes sent. */
function hugeDeclaredTar(size: number): Buffer {
  const tar = writeTar([{ name: "fz", content: SCRIPT, mode: 0o755 }], { gzip: false });
  const header = tar.subarray(0, 512);
  Buffer.from(`${size.toString(8).padStart(11, "0")}\0`).copy(header, 124);
  header.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  Buffer.from(`${sum.toString(8).padStart(6, "0")}\0 `).copy(header, 148);
  return tar;
}

function tarArtifact(rng: Random, seed: number, gzip: boolean): FuzzArtifact {
  const strip = rng.pick([0, 0, 0, 1, 2]);
  const prefix = wrapPrefix(strip);
  const binDir = rng.chance(0.2) ? "bin/" : "";
  const entries: TarEntry[] = [];
  for (let i = 0; i < strip; i++) entries.push({ name: wrapPrefix(i + 1), type: "directory" });
  const binIsDir = rng.chance(0.04);
  if (binDir !== "") entries.push({ name: `${prefix}bin/`, type: "directory" });
  entries.push(
    binIsDir
      ? { name: `${prefix}${binDir}fz/`, type: "directory" }
      : { name: `${prefix}${binDir}fz`, content: SCRIPT, mode: rng.chance(0.9) ? 0o755 : 0o644 },
  );
  entries.push({ name: `${prefix}README`, content: "docs\n" });
  const hostile = rng.chance(0.45) ? hostileTarEntries(rng, prefix, seed) : [];
  const all = rng.chance(0.3) ? [...hostile, ...entries] : [...entries, ...hostile];
  let data = writeTar(all, { gzip: false });
  let what = `tar ${all.map((e) => `${e.type ?? "file"}:${e.name}${e.linkname ? `->${e.linkname}` : ""}`).join(", ")}`;
  if (rng.chance(0.05)) {
    data = hugeDeclaredTar(rng.pick([2 ** 33, 0o77777777777, 1 << 20]));
    what = "tar with a huge declared size";
  }
  if (rng.chance(0.04)) {
    data = data.subarray(0, rng.int(0, data.length));
    what += " (truncated)";
  }
  return {
    data: gzip ? gzipSync(data) : data,
    ending: gzip ? rng.pick([".tar.gz", ".tgz"]) : ".tar",
    bins: [`${binDir}fz`],
    strip,
    description: what,
  };
}

function zipArtifact(rng: Random, seed: number): FuzzArtifact {
  const strip = rng.pick([0, 0, 1]);
  const prefix = wrapPrefix(strip);
  const entries: ZipEntry[] = [
    { name: `${prefix}fz`, content: SCRIPT, ...(rng.chance(0.8) ? { unixMode: 0o100755 } : {}) },
    { name: `${prefix}README`, content: "docs\n", unixMode: 0o100644 },
  ];
  if (rng.chance(0.45)) {
    entries.push(
      rng.pick<ZipEntry>([
        { name: `${prefix}../../../../../../../escaped-${seed}`, content: "evil" },
        { name: absoluteProbe(seed), content: "evil" },
        {
          name: `${prefix}lnk`,
          content: rng.pick(["/etc/passwd", "../../../../x", "fz", "a\u0000b", ""]),
          unixMode: 0o120777,
        },
        { name: `${prefix}FZ`, content: "evil", unixMode: 0o100755 },
        { name: `${prefix}fz/`, content: "", unixMode: 0o040755 },
        { name: `${prefix}dev`, content: "", unixMode: 0o020644 },
        { name: `${prefix}C:\\x`, content: "evil" },
        { name: "", content: "evil" },
      ]),
    );
  }
  let data = writeZip(entries);
  if (rng.chance(0.05)) data = data.subarray(0, rng.int(0, data.length));
  if (rng.chance(0.04)) {
    // The central directory's uncompressed size of the first entry: far more than its data holds.
    const central = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), data.length - 22);
    if (central > 0 && central + 28 <= data.length) data.writeUInt32LE(0xfffffff0, central + 24);
  }
  return {
    data,
    ending: ".zip",
    bins: ["fz"],
    strip,
    description: `zip ${entries.map((e) => `${e.unixMode?.toString(8) ?? "-"}:${JSON.stringify(e.name)}`).join(", ")}`,
  };
}

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../../test/fixtures/archives/${name}`, import.meta.url));
}

/** One artifact: mostly a tar.gz, also tar, zip, tar.bz2, tar.xz, raw, and bytes that are none of them. */
export function fuzzArtifact(rng: Random, seed: number): FuzzArtifact {
  return rng.pick<() => FuzzArtifact>([
    () => tarArtifact(rng, seed, true),
    () => tarArtifact(rng, seed, true),
    () => tarArtifact(rng, seed, true),
    () => tarArtifact(rng, seed, false),
    () => zipArtifact(rng, seed),
    () => zipArtifact(rng, seed),
    () => ({ data: Buffer.from(SCRIPT), ending: "", bins: ["fz"], strip: 0, description: "raw" }),
    () => ({
      data: fixture("hello-1.0.0.tar.bz2"),
      ending: ".tar.bz2",
      bins: ["hello"],
      strip: 0,
      description: "tar.bz2",
    }),
    () => ({
      data: fixture("wrapper-tool.tar.xz"),
      ending: ".tar.xz",
      bins: ["bin/tool"],
      strip: 1,
      description: "tar.xz",
    }),
    () => {
      const bytes = Buffer.from(Array.from({ length: rng.int(0, 300) }, () => rng.int(0, 255)));
      const ending = rng.pick([".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tar"]);
      const head =
        {
          ".tar.gz": [0x1f, 0x8b],
          ".zip": [0x50, 0x4b, 3, 4],
          ".tar.bz2": [0x42, 0x5a, 0x68],
          ".tar.xz": [0xfd, 0x37],
          ".tar": [],
        }[ending] ?? [];
      return {
        data: Buffer.concat([Buffer.from(head), bytes]),
        ending,
        bins: ["fz"],
        strip: 0,
        description: `garbage ${ending}`,
      };
    },
  ])();
}
