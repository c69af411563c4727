import { createReadStream, createWriteStream } from "node:fs";
import { chmod, copyFile, mkdir, open, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import type { ArchiveKind } from "../archive-kind.js";
import { isStoreFull, UnsafeArchiveError } from "../errors.js";
import { checkLink, checkNotThroughLink, type Links, onceOnly, stripped } from "./archive-entries.js";

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
 * would escape: an absolute path, a `..` component (also after stripping), a device or FIFO, a symbolic or hard
 * link whose target is absolute or resolves (after stripping, through the links before it) outside `dest`, and an
 * entry written through a link. Links that stay inside are kept: real release archives ship them
 * (`lib/libfoo.so -> libfoo.so.1`, `bin/tool -> ../libexec/tool`). Of an entry's mode only the executable bit is
 * kept (0755 or 0644).
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
        // A full or read-only store is the store's problem, not the archive's (install.ts names it with the room).
        if (error instanceof UnsafeArchiveError || isStoreFull(error)) throw error;
        // A corrupt or truncated archive (zlib, bzip2, xz or tar errors): name the archive, as for zip. A decoder that
        // fails on its own code instead (unbzip2-stream on a stream cut short: "Cannot read properties of undefined")
        // says nothing to the user: what is wrong is the data.
        const why =
          error instanceof TypeError || error instanceof RangeError
            ? `its ${options.kind} data is corrupt or cut short`
            : (error as Error).message;
        throw new UnsafeArchiveError(`Cannot unpack ${options.label}: ${why}`, { cause: error });
      }
  }
}

function safeRelative(path: string, options: ExtractOptions): string {
  const rel = stripped(path, { ...options, stripComponents: 0 });
  if (rel === undefined) throw new UnsafeArchiveError(`Cannot unpack ${options.label}: empty entry name`);
  return rel;
}

async function extractTar(file: string, dest: string, options: ExtractOptions): Promise<void> {
  const tar = await import("tar");
  let refused: UnsafeArchiveError | undefined;
  // Set at the first error: node-tar then writes no further entry, only finishes the ones it started.
  let stopped = false;
  const written = new Set<string>();
  const links: Links = new Map();
  const extractor = tar.x({
    cwd: dest,
    // Permissions come from the executable bit alone; ownership never from the archive.
    preserveOwner: false,
    noMtime: true,
    // An entry node-tar cannot write (a hard link to a file the archive never wrote, a file under a path that is a
    // file, an empty name or link target, a header that fails its checksum) is an error, not a warning it skips:
    // otherwise the install silently lacks what the archive holds (nao1215/block internal/archive/archive_test.go,
    // TestExtractRefusals: "the archive did not write", "empty name", "links to nothing").
    strict: true,
    filter: (path, entry) => {
      if (refused || stopped) return false;
      try {
        const type = "type" in entry ? entry.type : "File";
        if (type === "SymbolicLink" || type === "Link") {
          const rel = stripped(path, options);
          if (rel === undefined) return false;
          checkNotThroughLink(rel, { path, options, links });
          onceOnly(written, rel, { path, options });
          const e = entry as { path: string; linkpath?: string };
          const target = checkLink(
            rel,
            { kind: type === "Link" ? "hard" : "symbolic", linkpath: e.linkpath ?? "" },
            { path, options, links },
          );
          if (type === "Link" && !written.has(target.toLowerCase())) {
            throw new UnsafeArchiveError(
              `Cannot unpack ${options.label}: entry "${path}" is a hard link to "${e.linkpath}", a file the archive did not write before it`,
            );
          }
          e.path = rel;
          e.linkpath = target;
          return true;
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
        checkNotThroughLink(rel, { path, options, links });
        onceOnly(written, rel, { path, options, directory: type === "Directory" });
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
  try {
    await unpackTar(file, extractor, {
      ...options,
      stop: () => {
        stopped = true;
      },
    });
  } catch (error) {
    if (refused) throw refused;
    throw entryError(error, options) ?? error;
  }
  if (refused) throw refused;
}

/** An entry node-tar refused (`strict`), named by its path inside the archive; undefined for any other error. */
function entryError(error: unknown, options: ExtractOptions): UnsafeArchiveError | undefined {
  const e = error as {
    tarCode?: string;
    code?: string;
    entry?: { path?: string };
    header?: { path?: string };
  };
  if (typeof e.tarCode !== "string" || !e.tarCode.startsWith("TAR_ENTRY") || isStoreFull(error))
    return undefined;
  const path = e.entry?.path ?? e.header?.path ?? "";
  const { code, syscall } = error as { code?: string; syscall?: string };
  const why =
    code !== undefined && code !== e.tarCode
      ? `${code}${syscall ? ` on ${syscall}` : ""}`
      : (error as Error).message;
  return new UnsafeArchiveError(
    `Cannot unpack ${options.label}: entry "${path}" cannot be unpacked (${why}); refused rather than installing part of the archive`,
    { cause: error },
  );
}

/** How long a failed unpacking waits for node-tar to finish the entries it had started before giving up on them. */
const SETTLE_MS = 10_000;

async function unpackTar(
  file: string,
  extractor: NodeJS.WritableStream,
  options: ExtractOptions & { readonly stop: () => void },
): Promise<void> {
  const source = createReadStream(file, { highWaterMark: 1 << 20 });
  // Each stage's errors are listened to below (`pipe` forwards none).
  const stages: NodeJS.ReadableStream[] = [source];
  const through = (stage: NodeJS.ReadWriteStream) => {
    stages.push(source.pipe(stage));
    return stage;
  };
  let input: NodeJS.ReadableStream;
  if (options.kind === "tar.bz2") {
    const { default: bz2 } = await import("unbzip2-stream");
    input = through(bz2());
  } else if (options.kind === "tar.xz") {
    // xz-decompress: xz-embedded compiled to WASM, no native code and no install script; it speaks web streams.
    // It is a UMD bundle, so Node's ESM loader sees its exports only on `default`.
    const xzModule = (await import("xz-decompress")) as { default?: typeof import("xz-decompress") };
    const XzReadableStream = (xzModule.default ?? (xzModule as typeof import("xz-decompress")))
      .XzReadableStream;
    const xz = new XzReadableStream(Readable.toWeb(source) as ReadableStream<Uint8Array>);
    input = Readable.fromWeb(xz as import("node:stream/web").ReadableStream<Uint8Array>);
    stages.push(input);
  } else if (options.kind === "tar.gz" && (await startsWithGzipMagic(file))) {
    // node's zlib stream inflates on the thread pool while node-tar parses on the main thread; node-tar's own
    // detection inflates synchronously in its parser, which made a 100 MB install 1.3x `curl | tar xz` instead of
    // under 1.0x (bench/toolmgr/README.md, "sync"). A ".tar.gz" that is not gzip still goes to node-tar's detection.
    input = through(createGunzip({ chunkSize: 1 << 20 }));
  } else {
    input = source;
  }
  // Not `pipeline(input, extractor)`: that rejects at the first error while node-tar still writes the entries it
  // had started, so the caller's removal of the directory raced those writes (ENOTEMPTY, or files left behind in the
  // store). At the first error (a refused entry, a corrupt or truncated stream) nothing more is fed or written, and
  // the promise settles once node-tar has finished what it started.
  await new Promise<void>((resolve, reject) => {
    let failure: unknown;
    let settle: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(settle);
      if (failure === undefined) resolve();
      else reject(failure);
    };
    const fail = (error: unknown) => {
      if (failure !== undefined) return;
      failure = error;
      options.stop();
      // unbzip2-stream's stage is a classic `through` stream: no unpipe; destroying it ends its pipe.
      (input as Partial<Readable>).unpipe?.(extractor as NodeJS.WritableStream);
      for (const stage of stages) (stage as Readable).destroy?.();
      settle = setTimeout(done, SETTLE_MS);
      extractor.end();
    };
    for (const stage of stages) stage.on("error", fail);
    extractor.on("error", fail);
    extractor.on("finish", done);
    input.pipe(extractor);
  });
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
  const links: Links = new Map();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", resolve);
      zip.on("entry", (entry: import("yauzl").Entry) => {
        const name = entryName(entry);
        void (async () => {
          const unixMode = (entry.externalFileAttributes >>> 16) & 0o177777;
          const type = unixMode & 0o170000;
          const isDir = name.endsWith("/");
          if (type === 0o120000) {
            // A zip stores a symbolic link as an entry whose content is the target (Info-ZIP's Unix extra).
            stripped(name, { ...options, stripComponents: 0 });
            const rel = stripped(name, options);
            if (rel !== undefined) {
              const where = { path: name, options, links };
              checkNotThroughLink(rel, where);
              onceOnly(written, rel, where);
              const stream = await new Promise<NodeJS.ReadableStream>((res, rej) =>
                zip.openReadStream(entry, (err, s) => (err || !s ? rej(err) : res(s))),
              );
              const chunks: Buffer[] = [];
              for await (const chunk of stream) chunks.push(chunk as Buffer);
              const linkpath = Buffer.concat(chunks).toString("utf8");
              checkLink(rel, { kind: "symbolic", linkpath }, where);
              const target = join(dest, rel);
              await mkdir(dirname(target), { recursive: true });
              await symlink(linkpath, target);
            }
            zip.readEntry();
            return;
          }
          if (type !== 0 && type !== 0o100000 && type !== 0o040000) {
            throw new UnsafeArchiveError(
              `Cannot unpack ${options.label}: entry "${name}" is not a file or directory`,
            );
          }
          stripped(name, { ...options, stripComponents: 0 });
          const rel = stripped(name, options);
          if (rel !== undefined) {
            checkNotThroughLink(rel, { path: name, options, links });
            const target = join(dest, rel);
            if (isDir) {
              onceOnly(written, rel, { path: name, options, directory: true });
              await mkdir(target, { recursive: true });
            } else {
              onceOnly(written, rel, { path: name, options });
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

/**
 * An entry's name as its maker wrote it. yauzl reads UTF-8 when the entry says so (APPNOTE 6.3 bit 11) or carries
 * Info-ZIP's Unicode Path field, and code page 437 otherwise; but Info-ZIP's zip on Linux writes a UTF-8 name with
 * neither, and unzip takes a name made on Unix as the bytes it is ("é", where code page 437 gives "├⌐"). So does
 * this, for bytes that are UTF-8; a backslash is a separator, as yauzl makes it.
 */
function entryName(entry: import("yauzl").Entry): string {
  const flagged =
    (entry.generalPurposeBitFlag & 0x800) !== 0 || entry.extraFields.some((f) => f.id === 0x7075);
  if (flagged || entry.versionMadeBy >> 8 !== 3) return entry.fileName;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(entry.fileNameRaw).replace(/\\/g, "/");
  } catch {
    return entry.fileName;
  }
}
