import type { Server } from "node:http";
import type { Socket } from "node:net";
import { basename, dirname, join } from "node:path";
import { createSecureContext, type SecureContextOptions, type SecureVersion } from "node:tls";
import { PLAIN_HTTP_ON_TLS_ANSWER, tlsRecordHeaderLooksLikeHttp } from "@local/go-compat/http-refusal";
import { goPathError } from "@local/go-compat/os-error";
import { TlsError, WebhookError } from "../errors.js";
import type { Config } from "../flags.js";
import { readRegularFile } from "../regular-file.js";
import { openSslCiphers } from "./tls-ciphers.js";

/**
 * Checks `-tls-min-version` and `-cipher-suites`; upstream refuses bad ones with exit 1 once the hooks are loaded.
 *
 * @throws {TlsError} naming the unknown version or suite
 */
export function checkTlsSettings(config: Config): void {
  tlsVersion(config.tlsMinVersion);
  openSslCiphers(config.cipherSuites);
}

/**
 * `-tls-min-version` as node names it; empty is upstream's default, TLS 1.2.
 *
 * @throws {TlsError} for a version upstream does not know
 */
export function tlsVersion(text: string): SecureVersion {
  const versions: Record<string, SecureVersion> = {
    "": "TLSv1.2",
    "1.0": "TLSv1",
    "1.1": "TLSv1.1",
    "1.2": "TLSv1.2",
    "1.3": "TLSv1.3",
  };
  const v = versions[text];
  if (v === undefined) throw new TlsError(`error: unknown minimum TLS version: ${text}`);
  return v;
}

/**
 * The TLS settings of the server, at start and at each reload: `-cert` and `-key` read, `-tls-min-version` and
 * `-cipher-suites` applied.
 *
 * @throws {TlsError} worded as Go's `open <path>: <errno text>` for a file it cannot read
 */
export async function secureContextOptions(config: Config): Promise<SecureContextOptions> {
  let cert: Buffer;
  let key: Buffer;
  try {
    // Never blocks: a named pipe (a config-management tool mid-write), socket or device is refused, a stalled
    // file system times out, so a reload cannot hang the ones after it.
    cert = await readRegularFile(config.cert);
    key = await readRegularFile(config.key);
  } catch (cause) {
    if (cause instanceof WebhookError) throw new TlsError(cause.message, { cause });
    throw new TlsError(goPathError(cause as NodeJS.ErrnoException), { cause });
  }
  const ciphers = openSslCiphers(config.cipherSuites);
  return {
    cert,
    key,
    minVersion: tlsVersion(config.tlsMinVersion),
    ...(ciphers === undefined ? {} : { ciphers }),
  };
}

/**
 * Go answers a plain-HTTP request on the TLS port with a 400 text (`tlsRecordHeaderLooksLikeHTTP`); node would just
 * drop the connection. The first bytes are looked at before the TLS layer gets the socket; a TLS record (0x16)
 * goes on untouched (node's TLS socket takes over what was read), and a request that looks like HTTP gets Go's text.
 */
export function answerPlainHttpOnTls(server: Server, onConnection: (socket: Socket) => void): void {
  const tlsListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    onConnection(socket);
    let head = Buffer.alloc(0);
    const toTls = () => {
      socket.removeListener("data", onData);
      socket.removeListener("end", toTls);
      socket.pause();
      if (head.length > 0) socket.unshift(head);
      for (const listener of tlsListeners) listener.call(server, socket);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head[0] !== 0x16 && head.length < 5) return;
      if (tlsRecordHeaderLooksLikeHttp(head)) {
        socket.removeListener("data", onData);
        socket.removeListener("end", toTls);
        socket.pause();
        socket.end(PLAIN_HTTP_ON_TLS_ANSWER);
        return;
      }
      toTls();
    };
    socket.on("data", onData);
    // A client that leaves before its first record fails the handshake too (Go logs its EOF).
    socket.on("end", toTls);
  });
}

/**
 * Loads `-cert`/`-key` again and gives new connections the new pair (beyond upstream: SIGHUP, SIGUSR1, and
 * `-hotreload` on a change of either file). Connections already open, and requests in flight on them, keep the
 * pair they were made with. The pair is checked whole before anything changes, so a broken one (a file missing or
 * unreadable, not PEM, a key that does not match the certificate) leaves the current one in place.
 *
 * @throws {TlsError} saying what is wrong with the new pair
 */
export async function reloadCertificate(server: Server, config: Config): Promise<void> {
  const options = await secureContextOptions(config);
  try {
    // createSecureContext refuses what setSecureContext would half-apply: checked first, then swapped.
    createSecureContext(options);
    (server as unknown as { setSecureContext(o: SecureContextOptions): void }).setSecureContext(options);
  } catch (cause) {
    throw new TlsError(`tls: ${(cause as Error).message}`, { cause });
  }
}

/** What certificate reloads need from the outside world. */
export interface CertificateReloadDeps {
  readonly log: (line: string) => void;
  /** Watches a directory; calls back once per burst of changes to a file in it, with its base name. */
  readonly watch: (dir: string, onChange: (file: string) => void) => void;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * With `-secure`, the reload a SIGHUP/SIGUSR1 runs after the hooks' (a broken new pair keeps the old one, with the
 * reason in the log), and with `-hotreload` a watch of `-cert`/`-key` that runs it too. Without `-secure`, the
 * reload does nothing.
 */
export function startCertificateReloads(
  config: Config,
  parts: { server: Server; deps: CertificateReloadDeps },
): () => Promise<void> {
  const { server, deps } = parts;
  const reload = async () => {
    if (!config.secure) return;
    try {
      await reloadCertificate(server, config);
      deps.log(`reloaded TLS certificate ${config.cert} and key ${config.key}`);
    } catch (error) {
      if (!(error instanceof TlsError)) throw error;
      deps.log(
        `error reloading TLS certificate ${config.cert} and key ${config.key}, keeping the previous pair: ${error.message}`,
      );
    }
  };
  if (config.secure && config.hotreload) watchCertificate(config, { deps, reload });
  return reload;
}

/**
 * `-hotreload` with `-secure`: a change of the certificate or key file reloads the pair. A renewal writes both
 * files: the changes of one burst are taken together (half a second after the last), so the new certificate is not
 * tried with the old key.
 */
function watchCertificate(
  config: Config,
  parts: { deps: CertificateReloadDeps; reload: () => Promise<void> },
): void {
  const { deps } = parts;
  let generation = 0;
  const changed = () => {
    const mine = ++generation;
    void deps.sleep(500).then(() => {
      if (mine !== generation) return;
      deps.log("TLS certificate or key modified");
      return parts.reload();
    });
  };
  const dirs = new Map<string, Set<string>>();
  for (const file of [config.cert, config.key]) {
    const names = dirs.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    dirs.set(dirname(file), names);
  }
  for (const [dir, names] of dirs) {
    deps.log(`setting up file watcher for ${[...names].map((n) => join(dir, n)).join(" and ")}`);
    deps.watch(dir, (file) => {
      if (names.has(file)) changed();
    });
  }
}

/**
 * A failed handshake's error as Go's crypto/tls words the common ones (a client that goes away is `EOF`); others
 * keep OpenSSL's reason (README "Differences that remain").
 */
export function goHandshakeError(error: Error & { code?: string; reason?: string }): string {
  if (error.code === "ECONNRESET" || /socket disconnected/i.test(error.message)) return "EOF";
  return `tls: ${error.reason ?? error.message}`;
}
