// A TLS handshake stopped half-way while the web config changes (each connection is judged by the config
// its handshake started with, as Go's GetConfigForClient hands each one its own).
import { writeFile } from "node:fs/promises";
import type { Tap } from "./tcp-tap.js";
import { type TlsOutcome, tlsAttempt } from "./tls-attempt.js";

/** A web config serving TLS with no client certificate asked (its files beside it: server.crt, server.key). */
export const OPEN_TLS = 'tls_server_config:\n  cert_file: "server.crt"\n  key_file: "server.key"\n';
/** The same, requiring a certificate of client_selfsigned.pem's CA. */
export const STRICT_TLS = `${OPEN_TLS}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: client_selfsigned.pem\n`;

/**
 * Writes `from` to `config`, starts a handshake without a client certificate through `tap` (made with `hold`) and
 * holds it after its ClientHello was answered; writes `to`, makes another connection straight to `port`, then lets
 * the held one finish. Resolves with what both clients saw.
 */
export async function heldHandshake(options: {
  config: string;
  from: string;
  to: string;
  tap: Tap;
  port: number;
}): Promise<{ held: TlsOutcome; meanwhile: TlsOutcome }> {
  await writeFile(options.config, options.from);
  const next = options.tap.next();
  const held = tlsAttempt(options.tap.port);
  const connection = await next;
  await connection.answered;
  await writeFile(options.config, options.to);
  const meanwhile = await tlsAttempt(options.port);
  connection.release();
  return { held: await held, meanwhile };
}
