import { gzipSync } from "node:zlib";

/** One entry of a tar archive written by `writeTar`, exactly as given (no checks: tests need hostile archives). */
export interface TarEntry {
  readonly name: string;
  readonly type?: "file" | "directory" | "symlink" | "hardlink" | "char" | "fifo";
  readonly content?: string | Buffer;
  /** @default 0o644 for files, 0o755 for directories, 0o777 for links */
  readonly mode?: number;
  /** The target of a link. */
  readonly linkname?: string;
  /**
   * Where a name or link target over 100 bytes goes: a PAX extended header (`x`, POSIX.1-2001) or GNU's `L`/`K`
   * entries; the ustar fields then hold the first 100 bytes, as GNU tar writes them.
   */
  readonly long?: "pax" | "gnu";
}

const TYPE_FLAG = { file: "0", hardlink: "1", symlink: "2", char: "3", directory: "5", fifo: "6" } as const;

/**
 * A ustar archive (POSIX.1-1988, the format every tar reads) of `entries`, gzipped unless `gzip` is false. Written in
 * Node, so the tests need no tar, python or zip program; names and link targets over 100 bytes need `long`.
 */
export function writeTar(entries: readonly TarEntry[], options: { gzip?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    if (entry.long === "pax") {
      const records = [`path=${entry.name}\n`, ...(entry.linkname ? [`linkpath=${entry.linkname}\n`] : [])]
        .map((body) => {
          // A record's length counts its own digits.
          let length = Buffer.byteLength(body) + 2;
          while (Buffer.byteLength(`${length} ${body}`) !== length)
            length = Buffer.byteLength(`${length} ${body}`);
          return `${length} ${body}`;
        })
        .join("");
      blocks.push(...writeBlocks({ name: "PaxHeaders/x", content: records }, "x"));
    } else if (entry.long === "gnu") {
      blocks.push(...writeBlocks({ name: "././@LongLink", content: `${entry.name}\0` }, "L"));
      if (entry.linkname)
        blocks.push(...writeBlocks({ name: "././@LongLink", content: `${entry.linkname}\0` }, "K"));
    }
    blocks.push(...writeBlocks(entry));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return options.gzip === false ? tar : gzipSync(tar);
}

/** The header and data blocks of one entry; `flag` overrides the type's (for extension headers). */
function writeBlocks(entry: TarEntry, flag?: string): Buffer[] {
  const type = entry.type ?? "file";
  const data = type === "file" || flag ? Buffer.from(entry.content ?? "") : Buffer.alloc(0);
  const header = Buffer.alloc(512);
  const put = (text: string, offset: number, length: number) => {
    let bytes = Buffer.from(text, "utf8");
    if (bytes.length > length && entry.long) bytes = bytes.subarray(0, length);
    if (bytes.length > length) throw new RangeError(`tar field too long: ${text}`);
    bytes.copy(header, offset);
  };
  const octal = (n: number, offset: number, length: number) =>
    put(`${n.toString(8).padStart(length - 1, "0")}\0`, offset, length);
  put(entry.name, 0, 100);
  octal(entry.mode ?? (type === "directory" ? 0o755 : type.endsWith("link") ? 0o777 : 0o644), 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(data.length, 124, 12);
  octal(Math.floor(Date.UTC(2024, 0, 1) / 1000), 136, 12);
  put(flag ?? TYPE_FLAG[type], 156, 1);
  put(entry.linkname ?? "", 157, 100);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  // The checksum is the byte sum of the header with the checksum field read as spaces.
  header.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return [header, data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}
