/** Base of every expected bootstatus failure; `code` is stable; exit-code.ts maps failures to exit codes. */
export class BootstatusError extends Error {
  readonly code: string;
  constructor(message: string, options: { code: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }
}

/** A bad command line: argparse exits 2 with the usage on stderr, and so do we. */
export class UsageError extends BootstatusError {
  constructor(message: string) {
    super(message, { code: "BOOTSTATUS_USAGE" });
  }
}

/** An input file given to `validate` or `convert` cannot be read or is not what it should be. */
export class InputError extends BootstatusError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "BOOTSTATUS_INPUT", ...options });
  }
}

/** `report --to` could not deliver the report before its deadline (exit 4, the last error named). */
export class ReportError extends BootstatusError {
  constructor(message: string) {
    super(message, { code: "BOOTSTATUS_REPORT" });
  }
}
