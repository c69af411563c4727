import type { Random } from "./fuzz-random.js";
import type { TarEntry } from "./tar-writer.js";
import type { ZipEntry } from "./zip-writer.js";

// The hostile additions and damage of the archive fuzzers' cases (archive-cases.ts): entries that leave the install
// or cannot be unpacked whole, each named, with whether `sync` must refuse it; a huge declared size; a cut that makes
// a tar shorter than it says.

/** Absolute paths a hostile archive may name: none of them may exist after a case. */
export function probePath(seed: number): string {
  return `/tmp/toolmgr-archfuzz-probe-${seed}`;
}

/** Hostile tar entries (names before stripping), and whether they must make `sync` refuse. */
export function hostileTar(
  rng: Random,
  prefix: string,
  seed: number,
  bin: string,
): { what: string; entries: TarEntry[]; refuse: boolean } {
  const up = "../".repeat(rng.int(1, 8));
  const file = (name: string, extra: Partial<TarEntry> = {}): TarEntry => ({
    name,
    content: "evil\n",
    mode: 0o755,
    ...extra,
  });
  const pick = rng.pick<[string, boolean, () => TarEntry[]]>([
    ["dotdot", true, () => [file(`${prefix}${up}escaped-${seed}`)]],
    ["absolute", true, () => [file(probePath(seed))]],
    [
      "symlink out, then a file through it",
      true,
      () => [
        {
          name: `${prefix}out`,
          type: "symlink",
          linkname: rng.pick([up.slice(0, -1), probePath(seed), `sub/${up}`]),
        },
        file(`${prefix}out/evil-${seed}`),
      ],
    ],
    [
      "symlink inside, then a file through it",
      true,
      () => [
        { name: `${prefix}sub/`, type: "directory" },
        { name: `${prefix}ln`, type: "symlink", linkname: "sub" },
        file(`${prefix}ln/x`),
      ],
    ],
    [
      "symlink to a symlink out",
      true,
      () => [
        { name: `${prefix}l1`, type: "symlink", linkname: "l2/x" },
        { name: `${prefix}l2`, type: "symlink", linkname: up.slice(0, -1) },
      ],
    ],
    [
      "hard link out",
      true,
      () => [
        {
          name: `${prefix}h`,
          type: "hardlink",
          linkname: rng.pick([`${up}x`, "/etc/passwd", `${prefix}${up}x`]),
        },
      ],
    ],
    [
      "hard link to a later entry",
      true,
      () => [{ name: `${prefix}h`, type: "hardlink", linkname: `${prefix}later` }, file(`${prefix}later`)],
    ],
    [
      "directory, then a file of its name",
      true,
      () => [{ name: `${prefix}d/`, type: "directory" }, file(`${prefix}d`)],
    ],
    [
      "file, then a directory of its name",
      true,
      () => [file(`${prefix}d`), { name: `${prefix}d/`, type: "directory" }, file(`${prefix}d/x`)],
    ],
    ["file, then a file under its name", true, () => [file(`${prefix}d`), file(`${prefix}D/x`)]],
    ["duplicate", true, () => [file(`${prefix}${rng.pick([bin, `./${bin}`, bin.toUpperCase()])}`)]],
    ["device", true, () => [{ name: `${prefix}dev`, type: rng.pick(["char", "fifo"] as const) }]],
    [
      "PAX name that escapes",
      true,
      () => [file(rng.pick([`${prefix}${up}pax-${seed}`, probePath(seed)]), { long: "pax" })],
    ],
    [
      "GNU long name that escapes",
      true,
      () => [file(`${prefix}${"d/".repeat(60)}${"../".repeat(61)}${up}gnu-${seed}`, { long: "gnu" })],
    ],
    [
      "PAX link target out",
      true,
      () => [{ name: `${prefix}pl`, type: "symlink", linkname: `${"x/../".repeat(30)}${up}`, long: "pax" }],
    ],
    [
      "bin is a link out",
      true,
      () => [{ name: `${prefix}fz`, type: "symlink", linkname: rng.pick(["/bin/sh", `${up}fz`]) }],
    ],
  ]);
  return { what: pick[0], refuse: pick[1], entries: pick[2]() };
}

export function hostileZip(
  rng: Random,
  prefix: string,
  seed: number,
  bin: string,
): { what: string; entries: ZipEntry[]; refuse: boolean } {
  const up = "../".repeat(rng.int(1, 8));
  const pick = rng.pick<[string, boolean, () => ZipEntry[]]>([
    ["dotdot", true, () => [{ name: `${prefix}${up}escaped-${seed}`, content: "evil" }]],
    ["absolute", true, () => [{ name: probePath(seed), content: "evil" }]],
    [
      "symlink out, then a file through it",
      true,
      () => [
        { name: `${prefix}out`, content: rng.pick([up.slice(0, -1), probePath(seed)]), unixMode: 0o120777 },
        { name: `${prefix}out/evil-${seed}`, content: "evil", unixMode: 0o100755 },
      ],
    ],
    ["link with a NUL", true, () => [{ name: `${prefix}nul`, content: "a\u0000b", unixMode: 0o120777 }]],
    [
      "symlink inside, then a file through it",
      true,
      () => [
        { name: `${prefix}sub/`, unixMode: 0o040755 },
        { name: `${prefix}ln`, content: "sub", unixMode: 0o120777 },
        { name: `${prefix}ln/x`, content: "x", unixMode: 0o100644 },
      ],
    ],
    [
      "file, then a directory of its name",
      true,
      () => [
        { name: `${prefix}d`, content: "x", unixMode: 0o100644 },
        { name: `${prefix}D/`, unixMode: 0o040755 },
      ],
    ],
    [
      "duplicate",
      true,
      () => [{ name: `${prefix}${rng.pick([bin, bin.toUpperCase()])}`, content: "evil", unixMode: 0o100755 }],
    ],
    ["device", true, () => [{ name: `${prefix}dev`, content: "", unixMode: rng.pick([0o020644, 0o010644]) }]],
    [
      "directory, then a file of its name",
      true,
      () => [
        { name: `${prefix}d/`, unixMode: 0o040755 },
        { name: `${prefix}d`, content: "x" },
      ],
    ],
    [
      "file, then a file under its name",
      true,
      () => [
        { name: `${prefix}d`, content: "x", unixMode: 0o100644 },
        { name: `${prefix}d/x`, content: "y", unixMode: 0o100644 },
      ],
    ],
    ["bin is a link out", true, () => [{ name: `${prefix}fz`, content: "/bin/sh", unixMode: 0o120777 }]],
  ]);
  return { what: pick[0], refuse: pick[1], entries: pick[2]() };
}

/** A huge declared size for the first file of a plain tar (its checksum fixed), or undefined when it has none. */
export function hugeSize(tar: Buffer, size: number): Buffer | undefined {
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return undefined;
    const declared = Number.parseInt(header.subarray(124, 135).toString(), 8);
    if (header[156] === 0x30) {
      const out = Buffer.from(tar);
      const h = out.subarray(at, at + 512);
      Buffer.from(`${size.toString(8).padStart(11, "0")}\0`).copy(h, 124);
      h.fill(" ", 148, 156);
      let sum = 0;
      for (const byte of h) sum += byte;
      Buffer.from(`${sum.toString(8).padStart(6, "0")}\0 `).copy(h, 148);
      return out;
    }
    at += 512 + Math.ceil(declared / 512) * 512;
  }
  return undefined;
}

/** An offset inside the data of a file of a plain tar, or undefined when no file has data. */
export function dataCut(rng: Random, tar: Buffer): number | undefined {
  const ranges: [number, number][] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(header.subarray(124, 135).toString(), 8) || 0;
    if (size > 1) ranges.push([at + 513, at + 512 + size - 1]);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  if (ranges.length === 0) return undefined;
  const [from, to] = rng.pick(ranges);
  return rng.int(from, to);
}
