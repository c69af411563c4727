import { createReadStream, createWriteStream } from "node:fs";
import { chmod, copyFile, mkdir, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { UnsafeArchiveError } from "../errors.js";
import type { ArchiveKind } from "./archive-kind.js";

/** What `extractArchive` needs. */
export interface ExtractOptions {
  readonly kind: ArchiveKind;
  /** Leading path components dropped from every entry. */
  readonly stripComponents: number;
  /** For a raw executable: the name to install it under (the tool's one `bin`). */
  readonly rawName: string;
  /** For messages. */
  readonly label: string;
}

/**
 * Unpacks `file` into the empty directory `dest`. Refuses (throws, leaving `dest` to be discarded) any entry that
 * would escape: an absolute path, a `..` component (also after stripping), a symbolic or hard link, a device or
 * FIFO. Of an entry's mode only the executable bit is kept (0755 or 0644).
 *
 * @throws {UnsafeArchiveError} naming the archive and the entry
 */
export async function extractArchive(file: string, dest: string, options: ExtractOptions): Promise<void> {
  switch (options.kind) {
    case "raw": {
      const target = join(dest, safeRelative(options.rawName, options));
      await mkdir(dirname(target), { recursive: true });
      await copyFile(file, target);
      await chmod(target, 0o755);
      return;
    }
    case "zip":
      try {
        return await extractZip(file, dest, options);
      } catch (error) {
        if (error instanceof UnsafeArchiveError) throw error;
        // yauzl refuses absolute and ".." names itself, and corrupt archives: name the archive either way.
        throw new UnsafeArchiveError(`Cannot unpack ${options.label}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    default:
      try {
        return await extractTar(file, dest, options);
      } catch (error) {
        if (error instanceof UnsafeArchiveError) throw error;
        // A corrupt or truncated archive (zlib, bzip2, xz or tar errors): name the archive, as for zip.
        throw new UnsafeArchiveError(`Cannot unpack ${options.label}: ${(error as Error).message}`, {
          cause: error,
        });
      }
  }
}

/** The entry path after stripping, checked; undefined for an entry stripped away entirely. */
function stripped(path: string, options: ExtractOptions): string | undefined {
  const normalized = path.replace(/\\/g, "/");
  if (normalized.startsWith("/") || /^[A-Za-z]:/.test(normalized)) {
    throw new UnsafeArchiveError(`Cannot unpack ${options.label}: entry "${path}" has an absolute path`);
  }
  const parts = normalized.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes(".."))
    throw new UnsafeArchiveError(`Cannot unpack ${options.label}: entry "${path}" escapes with ".."`);
  const rest = parts.slice(options.stripComponents);
  return rest.length === 0 ? undefined : rest.join("/");
}

/**
 * Refuses a second entry for one file (after stripping, `a/tool` and `b/tool` are both `tool`): which copy ends up
 * installed would depend on entry order, and a later entry could replace what an earlier one provided (nao1215/block
 * e2e/atago/artifacts.atago.yaml, "an archive that writes one file twice is refused").
 */
function onceOnly(
  written: Set<string>,
  rel: string,
  where: { readonly path: string; readonly options: ExtractOptions },
): void {
  const key = rel.toLowerCase(); // one file on case-insensitive file systems (macOS, Windows)
  if (written.has(key)) {
    throw new UnsafeArchiveError(
      `Cannot unpack ${where.options.label}: entry "${where.path}" writes "${rel}" a second time; refused rather than guessing which copy is meant`,
    );
  }
  written.add(key);
}

function safeRelative(path: string, options: ExtractOptions): string {
  const rel = stripped(path, { ...options, stripComponents: 0 });
  if (rel === undefined) throw new UnsafeArchiveError(`Cannot unpack ${options.label}: empty entry name`);
  return rel;
}

async function extractTar(file: string, dest: string, options: ExtractOptions): Promise<void> {
  const tar = await import("tar");
  let refused: UnsafeArchiveError | undefined;
  const written = new Set<string>();
  const extractor = tar.x({
    cwd: dest,
    // Permissions come from the executable bit alone; ownership never from the archive.
    preserveOwner: false,
    noMtime: true,
    filter: (path, entry) => {
      if (refused) return false;
      try {
        const type = "type" in entry ? entry.type : "File";
        if (type === "SymbolicLink" || type === "Link") {
          throw new UnsafeArchiveError(
            `Cannot unpack ${options.label}: entry "${path}" is a link; links are refused`,
          );
        }
        if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile" && type !== "Directory") {
          if (
            type === "GlobalExtendedHeader" ||
            type === "ExtendedHeader" ||
            type === "NextFileHasLongPath" ||
            type === "NextFileHasLongLinkpath"
          ) {
            return true;
          }
          throw new UnsafeArchiveError(
            `Cannot unpack ${options.label}: entry "${path}" is a ${type}; only files and directories are allowed`,
          );
        }
        // Strip here rather than with node-tar's `strip`, which counts a leading "./" as a component.
        const rel = stripped(path, options);
        if (rel === undefined) return false;
        if (type !== "Directory") onceOnly(written, rel, { path, options });
        (entry as { path: string }).path = type === "Directory" ? `${rel}/` : rel;
        if ("mode" in entry && typeof entry.mode === "number") {
          (entry as { mode: number }).mode = type === "Directory" || entry.mode & 0o111 ? 0o755 : 0o644;
        }
        return true;
      } catch (error) {
        refused = error as UnsafeArchiveError;
        return false;
      }
    },
  });
  // 1 MiB reads, not 64 KiB: fewer thread-pool round trips (extracting a 100 MB .tar.gz: 360 ms -> 150 ms).
  const source = createReadStream(file, { highWaterMark: 1 << 20 });
  if (options.kind === "tar.bz2") {
    const { default: bz2 } = await import("unbzip2-stream");
    await pipeline(source, bz2(), extractor);
  } else if (options.kind === "tar.xz") {
    // xz-decompress: xz-embedded compiled to WASM, no native code and no install script; it speaks web streams.
    // It is a UMD bundle, so Node's ESM loader sees its exports only on `default`.
    const xzModule = (await import("xz-decompress")) as { default?: typeof import("xz-decompress") };
    const XzReadableStream = (xzModule.default ?? (xzModule as typeof import("xz-decompress")))
      .XzReadableStream;
    const xz = new XzReadableStream(Readable.toWeb(source) as ReadableStream<Uint8Array>);
    await pipeline(Readable.fromWeb(xz as import("node:stream/web").ReadableStream<Uint8Array>), extractor);
  } else if (options.kind === "tar.gz" && (await startsWithGzipMagic(file))) {
    // node's zlib stream inflates on the thread pool while node-tar parses on the main thread; node-tar's own
    // detection inflates synchronously in its parser, which made a 100 MB install 1.3x `curl | tar xz` instead of
    // under 1.0x (bench/toolmgr/README.md, "sync"). A ".tar.gz" that is not gzip still goes to node-tar's detection.
    await pipeline(source, createGunzip({ chunkSize: 1 << 20 }), extractor);
  } else {
    await pipeline(source, extractor);
  }
  if (refused) throw refused;
}

async function startsWithGzipMagic(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function extractZip(file: string, dest: string, options: ExtractOptions): Promise<void> {
  const yauzl = await import("yauzl");
  const zip = await new Promise<import("yauzl").ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, decodeStrings: true }, (err, z) =>
      err || !z ? reject(err) : resolve(z),
    ),
  );
  const written = new Set<string>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", resolve);
      zip.on("entry", (entry: import("yauzl").Entry) => {
        void (async () => {
          const unixMode = (entry.externalFileAttributes >>> 16) & 0o177777;
          const type = unixMode & 0o170000;
          const isDir = entry.fileName.endsWith("/");
          if (type === 0o120000)
            throw new UnsafeArchiveError(
              `Cannot unpack ${options.label}: entry "${entry.fileName}" is a link; links are refused`,
            );
          if (type !== 0 && type !== 0o100000 && type !== 0o040000) {
            throw new UnsafeArchiveError(
              `Cannot unpack ${options.label}: entry "${entry.fileName}" is not a file or directory`,
            );
          }
          stripped(entry.fileName, { ...options, stripComponents: 0 });
          const rel = stripped(entry.fileName, options);
          if (rel !== undefined) {
            const target = join(dest, rel);
            if (isDir) {
              await mkdir(target, { recursive: true });
            } else {
              onceOnly(written, rel, { path: entry.fileName, options });
              await mkdir(dirname(target), { recursive: true });
              const stream = await new Promise<NodeJS.ReadableStream>((res, rej) =>
                zip.openReadStream(entry, (err, s) => (err || !s ? rej(err) : res(s))),
              );
              await pipeline(stream, createWriteStream(target));
              await chmod(target, unixMode & 0o111 ? 0o755 : 0o644);
            }
          }
          zip.readEntry();
        })().catch(reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
