import { UnsafeArchiveError } from "../errors.js";

// The checks every archive entry's path passes before it is written (extract.ts): stripped and confined to the
// install, written once, and never through or to a link that leaves it.

/** What the checks need of `ExtractOptions` (extract.ts). */
export interface EntryOptions {
  /** Leading path components dropped from every entry. */
  readonly stripComponents: number;
  /** For messages. */
  readonly label: string;
}

/** The entry path after stripping, checked; undefined for an entry stripped away entirely. */
export function stripped(path: string, options: EntryOptions): string | undefined {
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
 * e2e/atago/artifacts.atago.yaml, "an archive that writes one file twice is refused"). Likewise a path that is a file
 * for one entry and a directory for another (its own, or a parent of its path): the later silently replaced the
 * earlier, and with it the file's bytes. `written` holds files as `path`, directories as `path/`; a directory may
 * come twice.
 */
export function onceOnly(
  written: Set<string>,
  rel: string,
  where: { readonly path: string; readonly options: EntryOptions; readonly directory?: boolean },
): void {
  const key = rel.toLowerCase(); // one file on case-insensitive file systems (macOS, Windows)
  const parts = key.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const asDirectory = i < parts.length || where.directory === true;
    if (written.has(asDirectory ? prefix : `${prefix}/`)) {
      throw new UnsafeArchiveError(
        `Cannot unpack ${where.options.label}: entry "${where.path}" makes "${rel.split("/").slice(0, i).join("/")}" a ${asDirectory ? "directory" : "file"} where another entry makes it a ${asDirectory ? "file" : "directory"}; refused rather than guessing which is meant`,
      );
    }
    if (asDirectory) written.add(`${prefix}/`);
  }
  if (where.directory === true) return;
  if (written.has(key)) {
    throw new UnsafeArchiveError(
      `Cannot unpack ${where.options.label}: entry "${where.path}" writes "${rel}" a second time; refused rather than guessing which copy is meant`,
    );
  }
  written.add(key);
}

/**
 * The links unpacked so far (path → resolved target, both relative to the install directory), to resolve later
 * links through earlier ones and to refuse entries written through a link.
 */
export type Links = Map<string, string>;

/**
 * Where `linkpath`, written at `from` (a directory inside the install), resolves to, following the links in
 * `links`; undefined when it leaves the install (an absolute target, `..` above the top, or through another link).
 */
function resolveInside(from: string, linkpath: string, links: Links): string | undefined {
  const target = linkpath.replace(/\\/g, "/");
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target)) return undefined;
  const out: string[] = from === "" ? [] : from.split("/");
  let hops = 0;
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return undefined;
      out.pop();
      continue;
    }
    out.push(part);
    const through = links.get(out.join("/"));
    if (through !== undefined) {
      if (++hops > 40) return undefined; // a cycle of links
      out.splice(0, out.length, ...(through === "" ? [] : through.split("/")));
    }
  }
  return out.join("/");
}

/** Refuses an entry whose parent directories pass through a link (it would be written wherever the link points). */
export function checkNotThroughLink(
  rel: string,
  where: { readonly path: string; readonly options: EntryOptions; readonly links: Links },
): void {
  const parts = rel.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    if (where.links.has(prefix)) {
      throw new UnsafeArchiveError(
        `Cannot unpack ${where.options.label}: entry "${where.path}" is written through the link "${prefix}"`,
      );
    }
  }
}

/**
 * Checks a link entry at `rel` to `linkpath` (a symbolic link's target is relative to its directory, a hard link's to
 * the archive's top, before stripping) and records it; returns the target to write, relative as the entry needs it.
 *
 * @throws {UnsafeArchiveError} naming the entry when the target is absolute or leaves the install
 */
export function checkLink(
  rel: string,
  link: { readonly kind: "symbolic" | "hard"; readonly linkpath: string },
  where: { readonly path: string; readonly options: EntryOptions; readonly links: Links },
): string {
  const { options, links, path } = where;
  if (link.linkpath.includes("\0")) {
    // A zip stores a link's target as content, which can hold what no path can (block archive_test.go, "NUL").
    throw new UnsafeArchiveError(
      `Cannot unpack ${options.label}: entry "${path}" is a link whose target contains a NUL byte`,
    );
  }
  const linkpath = link.linkpath.replace(/\\/g, "/");
  if (linkpath.startsWith("/") || /^[A-Za-z]:/.test(linkpath)) {
    throw new UnsafeArchiveError(
      `Cannot unpack ${options.label}: entry "${path}" is a link to the absolute path "${link.linkpath}"; only links inside the install are kept`,
    );
  }
  const outside = () =>
    new UnsafeArchiveError(
      `Cannot unpack ${options.label}: entry "${path}" is a link to "${link.linkpath}", outside the install; only links inside the install are kept`,
    );
  if (link.kind === "hard") {
    // A hard link names its target from the archive's top: strip it as the entry was stripped.
    const parts = linkpath.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..") || parts.length <= options.stripComponents) throw outside();
    const target = resolveInside("", parts.slice(options.stripComponents).join("/"), links);
    if (target === undefined || target === "") throw outside();
    return target;
  }
  const slash = rel.lastIndexOf("/");
  const target = resolveInside(slash < 0 ? "" : rel.slice(0, slash), linkpath, links);
  if (target === undefined) throw outside();
  links.set(rel, target);
  return link.linkpath;
}
