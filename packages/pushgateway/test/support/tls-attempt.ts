// One TLS connection as a client sees it: whether its side of the handshake completed, the error it got (node's code
// names the alert the server sent, e.g. ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE), and the answer to a GET of /-/healthy.
import { readFile } from "node:fs/promises";
import { connect } from "node:tls";

/** What the client saw. */
export interface TlsOutcome {
  /** Whether the client finished its side of the handshake ('secureConnect'). */
  readonly handshake: boolean;
  /** node's error code, when the connection failed. */
  readonly error: string | undefined;
  /** The answer's status line, when one came. */
  readonly status: string | undefined;
}

/**
 * Connects to 127.0.0.1:`port` (server certificate not checked), optionally with the client certificate in
 * `<cert>.pem`/`<cert>.key` and at most `maxVersion`, sends a GET of /-/healthy and reads until the server closes.
 */
export async function tlsAttempt(
  port: number,
  options: { cert?: string; maxVersion?: "TLSv1.2" | "TLSv1.3" } = {},
): Promise<TlsOutcome> {
  const pair =
    options.cert === undefined
      ? {}
      : { cert: await readFile(`${options.cert}.pem`), key: await readFile(`${options.cert}.key`) };
  return new Promise((resolve) => {
    let handshake = false;
    let text = "";
    let error: string | undefined;
    const socket = connect({
      host: "127.0.0.1",
      port,
      servername: "localhost",
      rejectUnauthorized: false,
      ...pair,
      ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
    });
    socket.setTimeout(5000, () => socket.destroy(new Error("no close within 5 s")));
    socket.on("secureConnect", () => {
      handshake = true;
      socket.write("GET /-/healthy HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("close", () => {
      const status = /^HTTP\/\S+ \d+[^\r\n]*/.exec(text)?.[0];
      resolve({ handshake, error, status });
    });
  });
}
