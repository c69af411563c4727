import type { Server } from "node:http";
import { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { PLAIN_HTTP_ON_TLS_ANSWER, tlsRecordHeaderLooksLikeHttp } from "@local/go-compat/http-refusal";
import { WebConfigError } from "../errors.js";
import type { Log } from "../logger.js";
import type { LiveWebConfig } from "../web/live-web-config.js";
import { subjectAltNames, type TlsSettings } from "../web/tls-settings.js";

/** A TLS server as node's https and http2 modules make them: `tls.Server` underneath. */
export type TlsServer = Server & { setSecureContext(options: object): void; requestCert?: boolean };

/** TLS alert descriptions Go's server sends (RFC 8446 §6). */
const BAD_CERTIFICATE = 42;
const PROTOCOL_VERSION = 70;
const INTERNAL_ERROR = 80;

/**
 * node's default TLS handshake timeout, kept for the wait for a connection's first bytes, which now comes before
 * node's own timer starts (Go has none; a connection that never speaks is not kept forever).
 */
const FIRST_BYTES_TIMEOUT_MS = 120_000;

/** How the first record header of a connection reads to Go (crypto/tls conn.go `readRecordOrCCS`, net/http). */
export type FirstRecord = "tls" | "alert" | "http" | "sslv2" | "other";

/**
 * Go's checks of a server connection's first five bytes: 0x80 is an SSLv2 hello (refused with a protocol_version
 * alert); a record that is neither a handshake nor an alert, or claims a version from 16.0 up, is "not a TLS
 * handshake" (net/http answers it with PLAIN_HTTP_ON_TLS_ANSWER when it starts as a request, else just closes). An
 * alert before any handshake ends Go's handshake without a word, where OpenSSL would answer unexpected_message.
 */
export function classifyFirstRecord(header: Buffer): FirstRecord {
  const type = header[0];
  if (type === 0x80) return "sslv2";
  if ((type === 22 || type === 21) && header.readUInt16BE(1) < 0x1000) return type === 22 ? "tls" : "alert";
  return tlsRecordHeaderLooksLikeHttp(header) ? "http" : "other";
}

/** A fatal TLS alert record in plaintext, with the record version Go's `writeRecordLocked` puts on it. */
export function alertRecord(version: number, description: number): Buffer {
  return Buffer.from([21, version >> 8, version & 0xff, 0, 2, 2, description]);
}

/** Why a client certificate is refused, and whether Go sends its bad_certificate alert for it. */
export interface CertRefusal {
  readonly reason: string;
  readonly alert: boolean;
}

/**
 * Go's judgement of a client certificate (crypto/tls `processCertsFromClient`, exporter-toolkit
 * `VerifyPeerCertificate` when `client_allowed_sans` is set) under the policy the connection's handshake started
 * with. `raw` is the certificate the client gave, `authorized` whether node verified it against the configured CA.
 */
export function clientCertRefusal(
  policy: TlsSettings,
  peer: { raw: Buffer | undefined; authorized: boolean; authorizationError?: string },
): CertRefusal | undefined {
  // NoClientCert asks for no certificate: neither Go's checks nor VerifyPeerCertificate run.
  if (policy.clientAuth === "NoClientCert") return undefined;
  const given = peer.raw !== undefined;
  const required =
    policy.clientAuth === "RequireAnyClientCert" || policy.clientAuth === "RequireAndVerifyClientCert";
  if (!given && required) return { reason: "tls: client didn't provide a certificate", alert: true };
  const verifies =
    policy.clientAuth === "VerifyClientCertIfGiven" || policy.clientAuth === "RequireAndVerifyClientCert";
  if (given && verifies && !(policy.hasCa && peer.authorized))
    return {
      reason: `tls: failed to verify client certificate: ${peer.authorizationError ?? "the configured CA bundle holds no certificate"}`,
      alert: true,
    };
  if (policy.allowedSans === undefined) return undefined;
  // Go calls VerifyPeerCertificate even without a certificate, and exporter-toolkit's reads the first one: without
  // one it panics, net/http recovers and drops the connection, no alert.
  if (peer.raw === undefined)
    return { reason: "no client certificate to check client_allowed_sans against", alert: false };
  const sans = subjectAltNames(peer.raw);
  if (sans.some((san) => policy.allowedSans?.includes(san))) return undefined;
  return {
    reason: `could not find allowed SANs in client cert, found: [${policy.allowedSans.join(" ")}]`,
    alert: true,
  };
}

/** node's server options for TLS settings: client certificates asked for when the policy wants them. */
export function tlsServerOptions(tls: TlsSettings) {
  // Certificates are judged by clientCertRefusal inside the handshake (see serveTls), not by node's own rejection.
  return { ...tls.context, requestCert: tls.clientAuth !== "NoClientCert", rejectUnauthorized: false };
}

/**
 * Makes a TLS server follow the web config as upstream's server does (exporter-toolkit `GetConfigForClient`, Go's
 * crypto/tls and net/http):
 * - the first bytes of each connection are looked at before TLS gets them: a plain HTTP request gets net/http's 400,
 *   an SSLv2 hello a protocol_version alert, anything else that is not a TLS record a close;
 * - then the file is read again and its certificate, key, CA, versions, ciphers, curves and client-certificate policy
 *   apply to that connection, and to that connection only, however the file changes while its handshake runs; a file
 *   that no longer yields TLS settings refuses it with Go's internal_error alert;
 * - the client certificate is judged inside the handshake: a refused one never sees the server's Finished on TLS 1.2
 *   and gets Go's bad_certificate alert. On TLS 1.3 the client sends its certificate after the server's Finished
 *   (RFC 8446 §4.4), so Go's alert arrives after the client's side of the handshake is done; node cannot send that
 *   alert (its verify callback accepts every certificate and leaves the judgement to JavaScript), so ours closes the
 *   connection there and the client's first read fails instead of reading the alert.
 */
export function serveTls<T extends TlsServer>(
  server: T,
  options: { config: LiveWebConfig; initial: TlsSettings; log: Log },
): T {
  const { config, log } = options;
  // node's tls.Server wraps each accepted socket in its "connection" listener; taken here so that each socket is
  // looked at and given its own settings first.
  const wrapInTls = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const policies = new WeakMap<Socket, TlsSettings>();
  let applied = options.initial;
  server.on("connection", (socket: Socket) => {
    readFirstRecordHeader(socket, (header) => {
      if (header === undefined) {
        socket.destroy();
        return;
      }
      const kind = classifyFirstRecord(header);
      if (kind === "http") return answerAndClose(socket, PLAIN_HTTP_ON_TLS_ANSWER);
      if (kind === "sslv2") return answerAndClose(socket, alertRecord(0x0301, PROTOCOL_VERSION));
      if (kind === "other" || kind === "alert") {
        socket.destroy();
        return;
      }
      const settings = config.forConnection();
      if (settings instanceof WebConfigError) {
        log("error", "Unable to parse configuration", { err: settings.message });
        // GetConfigForClient's error: Go sends internal_error before any version is agreed (record version TLS 1.0).
        return answerAndClose(socket, alertRecord(0x0301, INTERNAL_ERROR));
      }
      if (settings !== applied) {
        applied = settings;
        server.setSecureContext(tlsServerOptions(settings));
        // node's tls.Server reads requestCert for each new connection; setSecureContext does not change it.
        server.requestCert = settings.clientAuth !== "NoClientCert";
      }
      // node builds the connection's TLS socket from the server's context and requestCert right now, synchronously:
      // these settings are the connection's, whatever the next connection applies.
      policies.set(socket, settings);
      for (const wrap of wrapInTls) wrap.call(server, socket);
    });
  });
  // Runs inside node's handshake-done callback, before what OpenSSL wrote last (on TLS 1.2 the server's
  // ChangeCipherSpec and Finished) leaves.
  server.prependListener("secureConnection", (socket: TLSSocket) => {
    // The TLS socket node makes for each connection does not allow half-open ones: a client's close_notify and FIN
    // right after its request would end it before the answer (see httpAllowHalfOpen in startServer).
    socket.allowHalfOpen = true;
    // The accepted socket node wrapped (TLSSocket keeps it as `_parent`).
    const raw = (socket as TLSSocket & { _parent?: unknown })._parent;
    const policy = raw instanceof Socket ? policies.get(raw) : undefined;
    const peer = socket.getPeerCertificate();
    const refusal =
      policy === undefined
        ? { reason: "no web config recorded for this connection", alert: false }
        : clientCertRefusal(policy, {
            raw: peer && "raw" in peer ? (peer.raw as Buffer | undefined) : undefined,
            authorized: socket.authorized,
            ...(socket.authorizationError ? { authorizationError: String(socket.authorizationError) } : {}),
          });
    if (refusal === undefined) return;
    log("debug", "TLS handshake refused: client certificate", {
      client_auth_type: policy?.clientAuth ?? "",
      error: refusal.reason,
    });
    // A plaintext alert is what Go sends on TLS 1.2 before its own ChangeCipherSpec; a resumed session has sent it.
    if (
      refusal.alert &&
      raw instanceof Socket &&
      socket.getProtocol() === "TLSv1.2" &&
      !socket.isSessionReused()
    )
      raw.write(alertRecord(0x0303, BAD_CERTIFICATE));
    socket.destroy();
  });
  return server;
}

/**
 * Calls `then` with the first five bytes of the connection (undefined when it ends, fails or stays silent first),
 * leaving every byte read in the socket for whoever reads it next.
 */
function readFirstRecordHeader(socket: Socket, then: (header: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (header: Buffer | undefined) => {
    socket.off("data", onData);
    socket.off("end", gone);
    socket.off("error", gone);
    socket.off("close", gone);
    socket.off("timeout", gone);
    socket.setTimeout(0);
    then(header);
  };
  const gone = () => finish(undefined);
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size < 5) return;
    socket.pause();
    const all = Buffer.concat(chunks);
    socket.unshift(all);
    finish(all.subarray(0, 5));
  };
  socket.on("data", onData);
  socket.once("end", gone);
  socket.once("error", gone);
  socket.once("close", gone);
  socket.once("timeout", gone);
  socket.setTimeout(FIRST_BYTES_TIMEOUT_MS);
}

/** Writes `answer` on the raw connection and closes it, as Go writes on the net.Conn and closes. */
function answerAndClose(socket: Socket, answer: string | Buffer): void {
  socket.on("error", () => socket.destroy());
  socket.end(answer, () => socket.destroy());
}
