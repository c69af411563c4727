/**
 * How an artifact is unpacked, from its file name (spec: "An asset may be a .tar.gz, .tar.bz2 or .zip archive or a
 * single raw executable"; `.tar.xz` and plain `.tar` beyond the spec, as aqua and mise accept them).
 */
export type ArchiveKind = "tar.gz" | "tar.bz2" | "tar.xz" | "tar" | "zip" | "raw";

/** The archive kind of a URL or asset name; anything not recognised is a raw executable. */
export function archiveKind(urlOrName: string): ArchiveKind {
  const name = urlOrName.split(/[?#]/)[0]?.toLowerCase() ?? "";
  if (name.endsWith(".tar.gz") || name.endsWith(".tgz")) return "tar.gz";
  if (name.endsWith(".tar.bz2") || name.endsWith(".tbz2") || name.endsWith(".tbz")) return "tar.bz2";
  if (name.endsWith(".tar.xz") || name.endsWith(".txz")) return "tar.xz";
  if (name.endsWith(".tar")) return "tar";
  if (name.endsWith(".zip")) return "zip";
  return "raw";
}
