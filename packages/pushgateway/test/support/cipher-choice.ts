// Which TLS suite a server picks for a client, and the cases where Go's choice (recorded from Debian's 1.5.1, and
// compared with it live in web-config.peers.test.ts) differs from what OpenSSL does by default.
import { connect } from "node:tls";

/** A client's offer: at most this version, these suites (OpenSSL's names) in this order. */
export interface CipherOffer {
  readonly maxVersion: "TLSv1.2" | "TLSv1.3";
  readonly ciphers?: string;
}

/** [config file, the client's offer, the suite Go picks ("refused" when the handshake fails)]. */
export const GO_CIPHER_CHOICES: readonly (readonly [string, CipherOffer, string])[] = [
  // cipher_suites lists AES-128 then AES-256; the client prefers AES-256: Go keeps its own order.
  [
    "web_config_noAuth_someCiphers.good.yml",
    { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256" },
    "ECDHE-RSA-AES128-GCM-SHA256",
  ],
  // The list in the other order and prefer_server_cipher_suites: false change nothing in Go >= 1.17.
  [
    "web_config_noAuth_someCiphers_noOrder.good.yml",
    { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256" },
    "ECDHE-RSA-AES128-GCM-SHA256",
  ],
  // Defaults: ChaCha20 when the client lists it first, AES-GCM otherwise; no CBC-SHA384 suite.
  [
    "web_config_noAuth.good.yml",
    { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-GCM-SHA256" },
    "ECDHE-RSA-CHACHA20-POLY1305",
  ],
  [
    "web_config_noAuth.good.yml",
    { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256" },
    "ECDHE-RSA-AES128-GCM-SHA256",
  ],
  ["web_config_noAuth.good.yml", { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-SHA384" }, "refused"],
  // TLS 1.3: AES-128-GCM for a client that prefers AES-GCM (node's default offer starts with AES-256), ChaCha20 for
  // one that lists it first.
  ["web_config_noAuth.good.yml", { maxVersion: "TLSv1.3" }, "TLS_AES_128_GCM_SHA256"],
  [
    "web_config_noAuth.good.yml",
    { maxVersion: "TLSv1.3", ciphers: "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256" },
    "TLS_CHACHA20_POLY1305_SHA256",
  ],
];

/** The suite 127.0.0.1:`port` picks for the offer, or "refused". */
export function negotiatedCipher(port: number, offer: CipherOffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({
      host: "127.0.0.1",
      port,
      servername: "localhost",
      rejectUnauthorized: false,
      maxVersion: offer.maxVersion,
      ...(offer.ciphers ? { ciphers: offer.ciphers } : {}),
    });
    socket.setTimeout(5000, () => socket.destroy());
    socket.on("secureConnect", () => {
      resolve(socket.getCipher().name);
      socket.end();
    });
    socket.on("error", () => resolve("refused"));
    socket.on("close", () => resolve("refused"));
  });
}
