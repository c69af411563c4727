/** Error classes of webhook; each has a stable `code`. `exit-code.ts` maps them to exit codes, `handler.ts` to statuses. */
export class WebhookError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A command-line error: Go's flag package prints it with the usage and exits 2. */
export class UsageError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_USAGE", message, options);
  }
}

/** A hooks file that cannot be read or parsed. */
export class HooksFileError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_HOOKS_FILE", message, options);
  }
}

/** A referenced request value does not exist (upstream `ParameterNodeError`): rules treat it as "not satisfied". */
export class ParameterNodeError extends WebhookError {
  constructor(key: string) {
    super("WEBHOOK_PARAMETER_NODE", `parameter node not found: ${key}`);
  }
}

/** A signature did not verify (upstream `SignatureError`): a 500 unless soft failures apply inside `or`. */
export class SignatureError extends WebhookError {
  constructor(message: string) {
    super("WEBHOOK_SIGNATURE", message);
  }
}

/** Any other rule evaluation failure (bad regex, empty secret, bad ip range): always a 500. */
export class RuleError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_RULE", message, options);
  }
}

/** The listener could not be opened; the message is worded as Go's `net.Listen` error. Exit 1. */
export class ListenError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_LISTEN", message, options);
  }
}

/** `-cert`/`-key` could not be loaded. Upstream logs it after "serving hooks on" and exits 0. */
export class TlsError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_TLS", message, options);
  }
}

/** A multipart body Go's `Request.ParseMultipartForm` refuses; the handler answers 500, as upstream does. */
export class MultipartError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_MULTIPART", message, options);
  }
}

/** Two hooks files served the same id at start-up (upstream's `log.Fatalf`): logged only, exit 1. */
export class DuplicateHookError extends WebhookError {
  constructor(id: string) {
    super(
      "WEBHOOK_DUPLICATE_HOOK",
      `error: hook with the id ${id} has already been loaded!\nplease check your hooks file for duplicate hooks ids!`,
    );
  }
}

/** `-pidfile` names a live process, or cannot be written (upstream's pidfile.New): logged only, exit 1. */
export class PidfileError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_PIDFILE", `Error creating pidfile: ${message}`, options);
  }
}

/** No hooks loaded, without `-verbose` or `-nopanic`: upstream prints this on stdout and exits 1. */
export class NoHooksError extends WebhookError {
  /** @param when `start` at start-up; `run` once `-hotreload` saw the last hooks file go (upstream's two wordings) */
  constructor(when: "start" | "run" = "start") {
    super(
      "WEBHOOK_NO_HOOKS",
      `couldn't load any hooks from file!\naborting webhook execution since the -verbose flag is set to false.\nIf, for some reason, you want webhook to ${when} without the hooks, either use -verbose flag, or -nopanic`,
    );
  }
}

/** `-setuid`/`-setgid` given alone, or the switch failed. Exit 1. */
export class PrivilegeError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_PRIVILEGES", message, options);
  }
}

/** `-logfile` cannot be opened for appending. Exit 1. */
export class LogFileError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_LOG_FILE", message, options);
  }
}

/**
 * A file read at run time (hooks file, `-cert`, `-key`, a template's `cat`) that is not a regular file: a named
 * pipe, a socket or a device would block the read or never end, so it is refused before it is read.
 */
export class NotRegularFileError extends WebhookError {
  constructor(path: string, type: string) {
    super(
      "WEBHOOK_NOT_REGULAR_FILE",
      `open ${path}: is ${type}, not a regular file; give the path of a regular file`,
    );
  }
}

/** A file read at run time gave no answer within the deadline (a stalled network file system): the read is left. */
export class FileReadTimeoutError extends WebhookError {
  constructor(path: string, seconds: number) {
    super(
      "WEBHOOK_FILE_READ_TIMEOUT",
      `read ${path}: no answer within ${seconds}s; is its file system stalled?`,
    );
  }
}

/** `-jobs-dir` cannot be created or read (beyond upstream). Exit 1. */
export class JobsDirError extends WebhookError {
  constructor(message: string, options?: ErrorOptions) {
    super("WEBHOOK_JOBS_DIR", message, options);
  }
}
