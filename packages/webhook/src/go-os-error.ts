/** Go's `syscall.Errno` texts for the errors node reports by code. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied",
  EADDRNOTAVAIL: "cannot assign requested address",
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EEXIST: "file exists",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
};

/** The errno text Go prints (`no such file or directory`), or node's message for codes not listed. */
export function goErrnoText(error: NodeJS.ErrnoException): string {
  return ERRNO_TEXT[error.code ?? ""] ?? error.message;
}

/** Go's `*PathError` text: `open /x/y: no such file or directory` (operation and path as node reports them). */
export function goPathError(error: NodeJS.ErrnoException, op?: string): string {
  return `${op ?? error.syscall ?? "open"} ${error.path ?? ""}: ${goErrnoText(error)}`;
}
