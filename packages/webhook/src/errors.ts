/** Error classes of webhook; each has a stable `code`. `main()` maps them to exit codes, `handler.ts` to statuses. */
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
