import { UsageError } from "../../errors.js";

/** Where and how to connect, read from `--storage.redis-url` (and the password file). */
export interface RedisTarget {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** `rediss://`: TLS, verifying the server's certificate against the host name. */
  readonly tls: boolean;
}

/**
 * Parses `redis://[user[:password]@]host[:port][/db]` or `rediss://...` (the IANA redis URI scheme, as redis-cli
 * and every client read it). A password from `--storage.redis-password-file` wins over one in the URL.
 *
 * @throws {UsageError} naming what is wrong
 */
export function parseRedisUrl(text: string, filePassword?: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `invalid --storage.redis-url "${text}": expected redis://[user:password@]host:port/db or rediss://...`,
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new UsageError(
      `invalid --storage.redis-url "${text}": the scheme must be redis:// or rediss:// (TLS), not ${url.protocol}//`,
    );
  if (url.hostname === "") throw new UsageError(`invalid --storage.redis-url "${text}": no host`);
  const dbText = url.pathname.replace(/^\//, "");
  if (dbText !== "" && !/^\d+$/.test(dbText))
    throw new UsageError(
      `invalid --storage.redis-url "${text}": the path must be a database number, like /0`,
    );
  if (url.search !== "" || url.hash !== "")
    throw new UsageError(`invalid --storage.redis-url "${text}": query parameters are not supported`);
  const urlPassword = url.password === "" ? undefined : decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? 6379 : Number(url.port),
    db: dbText === "" ? 0 : Number(dbText),
    username: url.username === "" ? undefined : decodeURIComponent(url.username),
    password: filePassword ?? urlPassword,
    tls: url.protocol === "rediss:",
  };
}

/** The URL with any password replaced by `xxxxx`, for logs and `/api/v1/status`. */
export function redactRedisUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === "") return text;
    url.password = "xxxxx";
    return url.toString();
  } catch {
    return text;
  }
}
