import { goPathError } from "@local/go-compat/os-error";
import { WebConfigError } from "../errors.js";
import {
  MAX_TLS_FILE_BYTES,
  MAX_WEB_CONFIG_BYTES,
  readRegularFile,
  readRegularFileSync,
} from "../regular-file.js";
import { bcryptCostError } from "./basic-auth.js";
import { buildTlsSettings, type TlsSettings } from "./tls-settings.js";
import { parseWebConfig, tlsEnabled, type WebConfigFile } from "./web-config.js";

const WEB_CONFIG_LIMIT = { maxBytes: MAX_WEB_CONFIG_BYTES, what: "--web.config.file" };
const TLS_FILE_LIMIT = { maxBytes: MAX_TLS_FILE_BYTES, what: "a TLS certificate, key or CA file" };

/**
 * `--web.config.file` as exporter-toolkit reads it: checked whole at start, then read again for every request
 * (`webHandler.ServeHTTP` calls `getConfig`) and before every TLS handshake (`GetConfigForClient`), so a rotated
 * certificate or a changed user list applies at once. A file that turns invalid while running fails each request
 * with 500 and each new TLS handshake, until it is fixed; the gateway keeps running.
 */
export class LiveWebConfig {
  private lastText: string | undefined;
  private lastParsed: WebConfigFile | WebConfigError | undefined;
  private lastTlsKey: string | undefined;
  private lastTls: TlsSettings | WebConfigError | undefined;

  readonly path: string;
  /** The file as it was at start: whether TLS is served and the rate limit are fixed then, as upstream. */
  readonly initial: WebConfigFile;
  /** The TLS settings at start, when the file turns TLS on. */
  readonly initialTls: TlsSettings | undefined;

  private constructor(path: string, initial: WebConfigFile, initialTls: TlsSettings | undefined) {
    this.path = path;
    this.initial = initial;
    this.initialTls = initialTls;
  }

  /**
   * Reads and checks the file as exporter-toolkit's `Serve` does before listening: strict YAML, every user's
   * password hash, the TLS section (files, client auth, HTTP/2 ciphers).
   *
   * @throws {WebConfigError} naming what is wrong
   */
  static async load(path: string): Promise<LiveWebConfig> {
    let text: string;
    try {
      text = (await readRegularFile(path, WEB_CONFIG_LIMIT)).toString("utf8");
    } catch (error) {
      throw new WebConfigError(goPathError(error as NodeJS.ErrnoException), { cause: error });
    }
    const parsed = parseWebConfig(text, path);
    for (const [user, hash] of parsed.users) checkHash(user, hash);
    const tls = tlsEnabled(parsed.tls) ? buildTlsSettings(parsed.tls, { http2: parsed.http2 }) : undefined;
    return new LiveWebConfig(path, parsed, tls);
  }

  /** The file as it is now, for a request; its error when it no longer parses. */
  forRequest(): WebConfigFile | WebConfigError {
    const text = this.#read();
    return text instanceof WebConfigError ? text : this.parsed(text);
  }

  /** The TLS settings as the file and the files it names are now, for a new connection; an error refuses it. */
  forConnection(): TlsSettings | WebConfigError {
    const text = this.#read();
    if (text instanceof WebConfigError) return text;
    const parsed = this.parsed(text);
    if (parsed instanceof WebConfigError) return parsed;
    if (!tlsEnabled(parsed.tls)) return new WebConfigError("TLS config is not present");
    // Built again only when the file or one of the files it names changed (node's context costs about a millisecond).
    // Each named file is read once per handshake: the bytes that make the key are the ones a rebuild uses.
    const files = new Map<string, Buffer>();
    const readOnce = (path: string): Buffer => {
      let data = files.get(path);
      if (data === undefined) {
        data = readRegularFileSync(path, TLS_FILE_LIMIT);
        files.set(path, data);
      }
      return data;
    };
    let key: string | undefined;
    try {
      key = [
        text,
        ...[parsed.tls.certFile, parsed.tls.keyFile, parsed.tls.clientCaFile].map((p) =>
          p === "" ? "" : readOnce(p).toString("latin1"),
        ),
      ].join("\0");
    } catch {
      // A named file that cannot be read: built again, so the handshake gets buildTlsSettings' error for it.
      key = undefined;
    }
    if (key === undefined || key !== this.lastTlsKey) {
      this.lastTlsKey = key;
      try {
        this.lastTls = buildTlsSettings(parsed.tls, { http2: parsed.http2, readFile: readOnce });
      } catch (error) {
        this.lastTls = error instanceof WebConfigError ? error : new WebConfigError((error as Error).message);
      }
    }
    return this.lastTls as TlsSettings | WebConfigError;
  }

  /**
   * The file's text, synchronously: a small local file read from the page cache costs some microseconds, where
   * readFile's four round trips through libuv's thread pool made a scrape wait behind concurrent pushes
   * (bench/pushgateway).
   */
  #read(): string | WebConfigError {
    try {
      return readRegularFileSync(this.path, WEB_CONFIG_LIMIT).toString("utf8");
    } catch (error) {
      return new WebConfigError(goPathError(error as NodeJS.ErrnoException), { cause: error });
    }
  }

  private parsed(text: string): WebConfigFile | WebConfigError {
    if (text !== this.lastText) {
      this.lastText = text;
      try {
        this.lastParsed = parseWebConfig(text, this.path);
      } catch (error) {
        this.lastParsed =
          error instanceof WebConfigError ? error : new WebConfigError((error as Error).message);
      }
    }
    return this.lastParsed as WebConfigFile | WebConfigError;
  }
}

/**
 * golang.org/x/crypto/bcrypt `Cost` as exporter-toolkit's `validateUsers` runs it on every hash at start
 * (`newFromHash`: the length, the `$`, the major version, then the two cost bytes after the version read by
 * `strconv.Atoi` and checked against 4..31; nothing more, so a hash Go's `Cost` takes is taken here and fails later
 * only when compared, as in Go); beyond upstream, `sha256:<hex>` is also accepted.
 */
function checkHash(user: string, hash: string): void {
  if (/^sha256:[0-9a-f]{64}$/.test(hash)) return;
  const problem = bcryptCostError(Buffer.from(hash));
  if (problem !== undefined)
    throw new WebConfigError(
      `${problem} (the password hash of user "${user}"; make one with htpasswd -nBC 10 "" | tr -d ':\\n')`,
    );
}
