/** Error classes of the pushgateway; each has a stable `code` and becomes an HTTP status in `handler.ts`. */
export class PushgatewayError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A push body that does not parse: 400 with the parser's message. */
export class ParseError extends PushgatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("PUSHGATEWAY_PARSE", message, options);
  }
}

/** A bad grouping key in the path (odd components, bad label name, bad base64, empty job): 400. */
export class GroupingKeyError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_GROUPING_KEY", message);
  }
}

/** A push that is inconsistent with stored or own metrics: 400 `pushed metrics are invalid or inconsistent ...`. */
export class ConsistencyError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_INCONSISTENT", message);
  }
}

/** Beyond upstream: a `match[]` selector that does not parse, or a request to the groups API it cannot serve: 400. */
export class SelectorError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_SELECTOR", message);
  }
}

/**
 * Beyond upstream: an aggregating push (`/aggregate/metrics/...`) that cannot be added into its group (type or
 * bucket layout differs from what the group holds): 400, nothing changed.
 */
export class AggregationError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_AGGREGATION", message);
  }
}

/** A command-line error: usage and exit 1 (kingpin). */
export class UsageError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_USAGE", message);
  }
}

/** The persistence file cannot be read: a clear startup error, never a silently empty store. */
export class PersistenceError extends PushgatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("PUSHGATEWAY_PERSISTENCE", message, options);
  }
}

/** Beyond upstream: a push over an opt-in limit (groups, series): 429, since expiry or deletes free room. */
export class LimitError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_LIMIT", message);
  }
}

/** A push body over `--push.max-body-bytes`: 413. */
export class BodyTooLargeError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_BODY_TOO_LARGE", message);
  }
}

/**
 * Beyond upstream: the shared store (`--storage.redis-url`) cannot take or confirm a change: 503, so a client retries
 * rather than believing a push was kept.
 */
export class StoreUnavailableError extends PushgatewayError {
  constructor(message: string) {
    super("PUSHGATEWAY_STORE_UNAVAILABLE", message);
  }
}

/** The one place error classes become HTTP statuses. */
export function httpStatus(error: PushgatewayError): number {
  if (error instanceof LimitError) return 429;
  if (error instanceof BodyTooLargeError) return 413;
  if (error instanceof StoreUnavailableError) return 503;
  return 400;
}

/** `--web.config.file` cannot be used: at start the gateway refuses to run; while running, 500 as upstream. */
export class WebConfigError extends PushgatewayError {
  constructor(message: string, options?: ErrorOptions) {
    super("PUSHGATEWAY_WEB_CONFIG", message, options);
  }
}
