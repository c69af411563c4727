import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Random } from "./fuzz-random.js";
import { dataCut, hostileTar, hostileZip, hugeSize } from "./hostile-entries.js";
import { type TarEntry, writeTar } from "./tar-writer.js";
import { writeZip, type ZipEntry } from "./zip-writer.js";

// Seeded archives for the archive fuzzers (test/archive-fuzz*.test.ts): a benign tree (files with odd, Unicode and
// long names, directories, links that stay inside, hard links, a bin that may be a link) with, in some cases, hostile
// entries added (`..`, absolute paths, links out and files written through them, hard links out or to later entries,
// a directory and a file of one name, duplicates, devices, PAX and GNU long names that escape, huge declared sizes,
// streams cut short). A benign case also carries the tree it must install (`expected`), worked out from the entries.

/** An install's content: path → `file <sha256/16> x|-`, `dir`, or `symlink <target>`. */
export type Tree = Map<string, string>;

/** One generated artifact. */
export interface ArchiveCase {
  readonly kind: "tar.gz" | "tar" | "zip" | "raw";
  /** The asset's bytes; `plain` is the uncompressed tar of a tar case (for other compressions). */
  readonly data: Buffer;
  readonly plain?: Buffer;
  readonly strip: number;
  readonly bins: readonly string[];
  /** The hostile additions (empty: a benign archive, which must install as `expected`). */
  readonly hostile: readonly string[];
  /** Whether a hostile addition leaves the install or cannot be unpacked whole: `sync` must refuse. */
  readonly mustRefuse: boolean;
  readonly expected?: Tree;
  readonly description: string;
}

const SEGMENTS = ["a", "lib", "share", "doc", "é", "日本", "with space", "x.y", "-dash", "q'uote", "UP"];

function digest(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex").slice(0, 16);
}

/** The tree below `dir` as lstat sees it (links not followed), without toolmgr's install marker. */
export async function readTree(dir: string): Promise<Tree> {
  const tree: Tree = new Map();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.slice(dir.length + 1);
    if (rel === ".toolmgr-install") continue;
    const s = await lstat(path);
    if (s.isSymbolicLink()) tree.set(rel, `symlink ${await readlink(path)}`);
    else if (s.isDirectory()) tree.set(rel, "dir");
    else if (s.isFile()) tree.set(rel, `file ${digest(await readFile(path))} ${s.mode & 0o111 ? "x" : "-"}`);
    else tree.set(rel, `other ${s.mode.toString(8)}`);
  }
  return tree;
}

/** A tree as sorted lines, for assertions and messages. */
export function treeLines(tree: Tree): string[] {
  return [...tree].map(([path, what]) => `${path}: ${what}`).sort();
}

interface Node {
  readonly path: string;
  readonly kind: "file" | "dir" | "symlink" | "hardlink";
  readonly content?: string;
  readonly exec?: boolean;
  readonly target?: string;
}

/** A benign tree, paths after stripping; unique without case; a link is never a parent of another entry. */
function benignNodes(rng: Random, options: { zip: boolean; modes: boolean }): { nodes: Node[]; bin: string } {
  const nodes: Node[] = [];
  const taken = new Set<string>();
  const dirs = new Set<string>([""]);
  const add = (node: Node) => {
    taken.add(node.path.toLowerCase());
    nodes.push(node);
  };
  const free = (path: string) =>
    !taken.has(path.toLowerCase()) &&
    ![...taken].some((t) => path.toLowerCase().startsWith(`${t}/`) || t.startsWith(`${path.toLowerCase()}/`));
  const script = "#!/bin/sh\necho fz\n";
  const binIsLink = rng.chance(0.25);
  const bin = binIsLink || rng.chance(0.3) ? "bin/fz" : "fz";
  if (binIsLink) {
    add({ path: "libexec", kind: "dir" });
    add({ path: "libexec/fz", kind: "file", content: script, exec: options.modes && rng.chance(0.5) });
    add({ path: "bin", kind: "dir" });
    // A symbolic link, or in a tar a hard link (made executable through the inode it shares).
    if (options.zip || rng.chance(0.6)) add({ path: "bin/fz", kind: "symlink", target: "../libexec/fz" });
    else add({ path: "bin/fz", kind: "hardlink", target: "libexec/fz" });
    dirs.add("libexec");
  } else {
    if (bin === "bin/fz") add({ path: "bin", kind: "dir" });
    add({ path: bin, kind: "file", content: script, exec: options.modes && rng.chance(0.8) });
  }
  for (let n = rng.int(0, 7); n > 0; n--) {
    const parent = rng.pick([...dirs]);
    let name = rng.pick(SEGMENTS);
    if (rng.chance(0.15)) name = `${name}-${"long".repeat(rng.int(20, 40))}`;
    const path = parent === "" ? name : `${parent}/${name}`;
    if (!free(path) || Buffer.byteLength(path) > 240) continue;
    const files = nodes.filter((x) => x.kind === "file");
    const what = rng.pick(["file", "file", "dir", "symlink", options.zip ? "file" : "hardlink"]);
    if (what === "dir") {
      add({ path, kind: "dir" });
      dirs.add(path);
    } else if (what === "file") {
      const content = rng.chance(0.2) ? "" : `${rng.hex(rng.int(1, 64))}\n`;
      add({ path, kind: "file", content, exec: options.modes && rng.chance(0.3) });
    } else if (what === "symlink") {
      // Relative to its directory, to something inside (written before or after, or nothing at all).
      const to = rng.chance(0.8) && files.length > 0 ? rng.pick(files).path : "missing";
      const up = parent === "" ? "" : "../".repeat(parent.split("/").length);
      add({ path, kind: "symlink", target: `${up}${to}` });
    } else if (files.length > 0) {
      add({ path, kind: "hardlink", target: rng.pick(files).path });
    }
  }
  return { nodes, bin };
}

/** What a benign tree installs: each node, its parent directories, and the bin made executable (links followed). */
function expectedTree(nodes: readonly Node[], bin: string): Tree {
  const tree: Tree = new Map();
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  // A hard link shares its target's inode: one mode for the group.
  const inode = (n: Node): string => (n.kind === "hardlink" ? (n.target ?? "") : n.path);
  const execGroups = new Set(nodes.filter((n) => n.kind === "file" && n.exec).map((n) => n.path));
  let binNode = byPath.get(bin);
  if (binNode?.kind === "symlink") binNode = byPath.get("libexec/fz");
  if (binNode !== undefined) execGroups.add(inode(binNode));
  for (const n of nodes) {
    const parts = n.path.split("/");
    for (let i = 1; i < parts.length; i++) tree.set(parts.slice(0, i).join("/"), "dir");
    if (n.kind === "dir") tree.set(n.path, "dir");
    else if (n.kind === "symlink") tree.set(n.path, `symlink ${n.target}`);
    else {
      const file = n.kind === "hardlink" ? byPath.get(n.target ?? "") : n;
      tree.set(n.path, `file ${digest(file?.content ?? "")} ${execGroups.has(inode(n)) ? "x" : "-"}`);
    }
  }
  return tree;
}

function toTar(nodes: readonly Node[], prefix: string, rng: Random): TarEntry[] {
  return nodes.map((n): TarEntry => {
    // Sometimes written as on Windows: a backslash is a separator in a name (README "Archives").
    const path = n.kind !== "hardlink" && rng.chance(0.04) ? n.path.replaceAll("/", "\\") : n.path;
    const name = `${rng.chance(0.1) ? "./" : ""}${prefix}${path}${n.kind === "dir" ? "/" : ""}`;
    const linkname = n.kind === "hardlink" ? `${prefix}${n.target}` : (n.target ?? "");
    const long =
      Buffer.byteLength(name) > 100 || Buffer.byteLength(linkname) > 100 || rng.chance(0.05)
        ? rng.pick(["pax", "gnu"] as const)
        : undefined;
    const base = { name, ...(long ? { long } : {}) };
    if (n.kind === "dir") return { ...base, type: "directory" };
    if (n.kind === "symlink") return { ...base, type: "symlink", linkname: n.target ?? "" };
    // A hard link names its target from the archive's top.
    if (n.kind === "hardlink") return { ...base, type: "hardlink", linkname: `${prefix}${n.target}` };
    return {
      ...base,
      content: n.content ?? "",
      mode: n.exec ? rng.pick([0o755, 0o700, 0o775]) : rng.pick([0o644, 0o600]),
    };
  });
}

/** `unix`: made on Unix (modes kept); otherwise as on Windows, with no modes but the links'. */
function toZip(nodes: readonly Node[], prefix: string, unix: boolean, rng: Random): ZipEntry[] {
  // Made on Unix, a name may be its UTF-8 bytes without the UTF-8 flag, as Info-ZIP's zip on Linux writes it.
  const unflagged = unix && rng.chance(0.3);
  const entry = (n: Node): ZipEntry => {
    if (n.kind === "dir") return { name: `${prefix}${n.path}/`, ...(unix ? { unixMode: 0o040755 } : {}) };
    if (n.kind === "symlink")
      return { name: `${prefix}${n.path}`, content: n.target ?? "", unixMode: 0o120777 };
    const mode = n.exec ? 0o100755 : 0o100644;
    return { name: `${prefix}${n.path}`, content: n.content ?? "", ...(unix ? { unixMode: mode } : {}) };
  };
  return nodes.map((n) => ({ ...entry(n), ...(unflagged ? { unflagged } : {}) }));
}

/** One case: a benign tree in a tar(.gz), zip or raw executable, sometimes with hostile entries or damage. */
export function archiveCase(rng: Random, seed: number): ArchiveCase {
  const kind = rng.pick(["tar.gz", "tar.gz", "tar", "zip", "zip", "raw"] as const);
  if (kind === "raw") {
    const data = Buffer.from("#!/bin/sh\necho raw fz\n");
    return {
      kind,
      data,
      strip: 0,
      bins: ["fz"],
      hostile: [],
      mustRefuse: false,
      expected: new Map([["fz", `file ${digest(data)} x`]]),
      description: "raw",
    };
  }
  const strip = rng.pick([0, 0, 1, 2]);
  const prefix = Array.from({ length: strip }, (_, i) => `w${i}/`).join("");
  const unix = kind !== "zip" || rng.chance(0.85);
  const { nodes, bin } = benignNodes(rng, { zip: kind === "zip", modes: unix });
  const hostile: string[] = [];
  let mustRefuse = false;
  const wrappers = Array.from({ length: strip }, (_, i) =>
    prefix
      .split("/")
      .slice(0, i + 1)
      .join("/"),
  );
  let data: Buffer;
  let plain: Buffer | undefined;
  let listing: string;
  if (kind === "zip") {
    let entries = [
      ...wrappers.map((w) => ({ name: `${w}/`, unixMode: 0o040755 })),
      ...toZip(nodes, prefix, unix, rng),
    ];
    if (rng.chance(0.5)) {
      const h = hostileZip(rng, prefix, seed, bin);
      hostile.push(h.what);
      mustRefuse ||= h.refuse;
      const at = rng.int(0, entries.length);
      entries = [...entries.slice(0, at), ...h.entries, ...entries.slice(at)];
    }
    data = writeZip(entries);
    // The central directory's uncompressed size of the first file (a directory's is never read): far more than its
    // data holds.
    let central = data.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    while (
      central > 0 &&
      data
        .subarray(central + 46, central + 46 + data.readUInt16LE(central + 28))
        .toString()
        .endsWith("/")
    )
      central = data.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), central + 46);
    if (rng.chance(0.04) && central > 0) {
      data.writeUInt32LE(0xfffffff0, central + 24);
      hostile.push("a huge declared size");
      mustRefuse = true;
    }
    listing = entries.map((e) => `${e.unixMode?.toString(8) ?? "-"}:${JSON.stringify(e.name)}`).join(", ");
  } else {
    let entries: TarEntry[] = [
      ...wrappers.map((w) => ({ name: `${w}/`, type: "directory" as const })),
      ...toTar(nodes, prefix, rng),
    ];
    if (rng.chance(0.5)) {
      const h = hostileTar(rng, prefix, seed, bin);
      hostile.push(h.what);
      mustRefuse ||= h.refuse;
      const at = rng.chance(0.5) ? entries.length : rng.int(0, entries.length);
      entries = [...entries.slice(0, at), ...h.entries, ...entries.slice(at)];
    }
    plain = writeTar(entries, { gzip: false });
    if (rng.chance(0.05)) {
      const huge = hugeSize(plain, rng.pick([2 ** 33, 0o77777777777, 1 << 20]));
      if (huge !== undefined) {
        plain = huge;
        hostile.push("a huge declared size");
        mustRefuse = true;
      }
    }
    data = kind === "tar.gz" ? gzipSync(plain) : plain;
    listing = entries
      .map(
        (e) =>
          `${e.type ?? "file"}${e.long ? `(${e.long})` : ""}:${JSON.stringify(e.name)}${e.linkname === undefined ? "" : `->${JSON.stringify(e.linkname)}`}`,
      )
      .join(", ");
  }
  // Cut anywhere, but a plain tar inside a file's data: cut in or after a header, it reads as a shorter archive
  // (GNU tar 1.34 takes it too, silently).
  const data0 = data;
  const cut = kind === "tar" ? dataCut(rng, data) : rng.int(0, data.length - 1);
  if (cut !== undefined && rng.chance(0.06)) {
    data = data0.subarray(0, cut);
    plain = undefined;
    hostile.push("cut short");
    mustRefuse = true;
  }
  return {
    kind,
    data,
    ...(plain ? { plain } : {}),
    strip,
    bins: [bin],
    hostile,
    mustRefuse,
    ...(hostile.length === 0 ? { expected: expectedTree(nodes, bin) } : {}),
    description: `${kind} strip ${strip}${hostile.length ? ` [${hostile.join("; ")}]` : ""}: ${listing}`,
  };
}
