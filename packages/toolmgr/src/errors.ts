/**
 * Error classes of toolmgr. Every expected failure is a `ToolmgrError` with a stable `code`; `main()` turns them
 * into exit codes in one place (usage → 2, `lock --check` drift → 3, everything else → 1).
 */
export class ToolmgrError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The command line is wrong: unknown command or option, missing argument. Exit 2. */
export class UsageError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_USAGE", message, options);
  }
}

/** `toolmgr.toml` is missing or invalid. */
export class ProjectFileError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_PROJECT_FILE", message, options);
  }
}

/** `toolmgr.lock` is missing, invalid, or out of date with `toolmgr.toml`. */
export class LockfileError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_LOCKFILE", message, options);
  }
}

/** The user's configuration (`$XDG_CONFIG_HOME/toolmgr/config.toml`) is invalid. */
export class ConfigError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_CONFIG", message, options);
  }
}

/** A recipe or project-local source definition is invalid. */
export class SourceError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_SOURCE", message, options);
  }
}

/** A constraint cannot be resolved to a release (no match, draft, moved channel without release, ...). */
export class ResolveError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_RESOLVE", message, options);
  }
}

/**
 * Every release the constraint allows is younger than its release cooldown (`min_release_age`), or the exact version
 * asked for is: `heldBack` names the newest one and when it becomes eligible (for `outdated`).
 */
export class YoungReleaseError extends ResolveError {
  readonly heldBack: { readonly version: string; readonly publishedAt: Date; readonly eligibleAt: Date };
  constructor(
    message: string,
    options: ErrorOptions & { heldBack: { version: string; publishedAt: Date; eligibleAt: Date } },
  ) {
    super(message, options);
    this.heldBack = options.heldBack;
  }
}

/** The tool has no artifact for a requested platform; no substitute is ever chosen. */
export class UnsupportedPlatformError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_UNSUPPORTED_PLATFORM", message, options);
  }
}

/** The code host or a download server answered with an error, or could not be reached. */
export class HttpError extends ToolmgrError {
  readonly status: number | undefined;
  constructor(message: string, options?: ErrorOptions & { status?: number }) {
    super("TOOLMGR_HTTP", message, options);
    this.status = options?.status;
  }
}

/** The proxy named by `HTTPS_PROXY`/`HTTP_PROXY` cannot be reached. */
export class ProxyError extends HttpError {}

/** The code host's rate limit was reached and the wait is too long to retry. */
export class RateLimitError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_RATE_LIMIT", message, options);
  }
}

/** A downloaded or cached artifact does not have the digest the lock records. */
export class DigestMismatchError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_DIGEST_MISMATCH", message, options);
  }
}

/** A private artifact needs `CODEHOST_TOKEN` and it is not set. */
export class MissingTokenError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_MISSING_TOKEN", message, options);
  }
}

/** An archive entry would escape the install directory, or is a link or device file. */
export class UnsafeArchiveError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_UNSAFE_ARCHIVE", message, options);
  }
}

/** A pinned tool is not installed (or its install is damaged); `toolmgr sync` fixes it. */
export class NotInstalledError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_NOT_INSTALLED", message, options);
  }
}

/** The store (`TOOLMGR_HOME`) cannot be written or read. */
export class StoreError extends ToolmgrError {
  constructor(message: string, options?: ErrorOptions) {
    super("TOOLMGR_STORE", message, options);
  }
}

/**
 * A file-system failure inside the store as a `StoreError` naming the store and the fix; anything else unchanged
 * (without this, a read-only or misplaced `TOOLMGR_HOME` surfaced as an "unexpected error" with a stack).
 */
export function asStoreError(error: unknown, home: string): unknown {
  if (error instanceof ToolmgrError || !(error instanceof Error)) return error;
  if (isStoreFull(error)) {
    return storeFullError(error, {
      doing: "write to the store",
      dir: home,
      needed: "it needed room to write",
    });
  }
  const { code, path } = error as NodeJS.ErrnoException;
  if (code === undefined || path === undefined || !path.startsWith(home)) return error;
  return new StoreError(
    `Cannot use the store "${home}": ${code} on ${path}; check that TOOLMGR_HOME (or XDG_DATA_HOME) names a directory you can write`,
    { cause: error },
  );
}

/** The file-system errors that mean the store has no room or cannot be written at all: never the network's fault. */
const STORE_FULL: Readonly<Record<string, { why: string; fix: string }>> = {
  ENOSPC: {
    why: "the file system is full (ENOSPC)",
    fix: "free some space (`toolmgr prune` removes what no project pins)",
  },
  EDQUOT: {
    why: "your disk quota is used up (EDQUOT)",
    fix: "free some space (`toolmgr prune` removes what no project pins)",
  },
  EROFS: { why: "the file system is read-only (EROFS)", fix: "make it writable" },
};

/** Whether `error` says the store is full or read-only (ENOSPC, EDQUOT, EROFS): nothing to retry. */
export function isStoreFull(error: unknown): boolean {
  return error instanceof Error && Object.hasOwn(STORE_FULL, (error as NodeJS.ErrnoException).code ?? "");
}

/**
 * A store that is full or read-only as a `StoreError` naming what was being done, where, and how much room it
 * needed (and had, when known); `error` itself when it is not one of those.
 */
export function storeFullError(
  error: unknown,
  where: {
    readonly doing: string;
    readonly dir: string;
    readonly needed: string;
    readonly free?: number | undefined;
  },
): unknown {
  if (!isStoreFull(error)) return error;
  const { why, fix } = STORE_FULL[(error as NodeJS.ErrnoException).code ?? ""] ?? { why: "", fix: "" };
  const free = where.free === undefined ? "" : ` (${where.free} bytes free there)`;
  return new StoreError(
    `Cannot ${where.doing}: ${why} at ${where.dir}; ${where.needed}${free}. ${fix[0]?.toUpperCase()}${fix.slice(1)}, or set TOOLMGR_HOME to a store on another file system; nothing was installed`,
    { cause: error },
  );
}

/** Exit code for an error, the one place where errors become exit codes. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return 2;
  return 1;
}
