import { createPrivateKey, constants as cryptoConstants, X509Certificate } from "node:crypto";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import { goPathError } from "@local/go-compat/os-error";
import { WebConfigError } from "../errors.js";
import { MAX_TLS_FILE_BYTES, readRegularFileSync } from "../regular-file.js";
import { type ClientAuth, GO_CIPHER_SUITES, GO_CURVES, type TlsServerConfig } from "./web-config.js";

/** What a TLS connection is served with: node's context options and the client-certificate policy. */
export interface TlsSettings {
  readonly context: SecureContextOptions;
  readonly clientAuth: ClientAuth;
  /** Whether client certificates are verified against `client_ca_file`/`client_ca`. */
  readonly verify: boolean;
  /**
   * Whether a client certificate can verify at all: false when a configured CA bundle holds no certificate (Go's
   * empty pool verifies no client). Without `client_ca_file`/`client_ca` Go verifies against the system roots; node's
   * root store (Mozilla's list, as Debian's system store, plus NODE_EXTRA_CA_CERTS) stands for them.
   */
  readonly hasCa: boolean;
  readonly allowedSans: readonly string[] | undefined;
}

/**
 * Go's choice of a TLS 1.3 suite (crypto/tls handshake_server_tls13.go): AES-128-GCM first, then AES-256-GCM, then
 * ChaCha20 unless the client lists ChaCha20 first (SSL_OP_PRIORITIZE_CHACHA below). Kept whatever `cipher_suites`
 * says: tls.Config.CipherSuites does not apply to TLS 1.3, and node turns TLS 1.3 off when the cipher string names none.
 */
const TLS13_SUITES = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

/**
 * crypto/tls `cipherSuitesPreferenceOrder` (cipher_suites.go) over the suites Go serves: since Go 1.17 the server
 * picks by this order, whatever order `cipher_suites` lists and whatever `prefer_server_cipher_suites` says (both have
 * no effect on the choice any more); the configured list only says which are allowed.
 */
const GO_TLS12_ORDER = [
  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
  "TLS_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_RSA_WITH_AES_128_CBC_SHA",
  "TLS_RSA_WITH_AES_256_CBC_SHA",
];

/**
 * Go's TLS 1.2 suites when `cipher_suites` is not set (crypto/tls defaults.go as upstream 1.11 is built: ECDHE only,
 * no RSA key exchange, no 3DES), where node's default list would add CBC-SHA384 and other suites Go never serves.
 */
const GO_DEFAULT_TLS12 = new Set(GO_TLS12_ORDER.filter((s) => s.startsWith("TLS_ECDHE_")));

/** Go's http2.ConfigureServer refuses a cipher list without one of these when HTTP/2 is on. */
const HTTP2_REQUIRED = ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"];

/**
 * Builds the TLS settings from `tls_server_config` as exporter-toolkit's `ConfigToTLSConfig` does, reading the
 * certificate, key and CA files now (synchronously: it runs before each handshake, as upstream's
 * `GetConfigForClient`, and these are small local files) through `readFile` (readFileSync unless given: the caller
 * that has just read them hands them over). Upstream's errors, in upstream's order.
 *
 * @throws {WebConfigError} naming what is wrong
 */
export function buildTlsSettings(
  tls: TlsServerConfig,
  options: { http2: boolean; readFile?: (path: string) => Buffer },
): TlsSettings {
  if (tls.certFile === "" && tls.cert === "") throw new WebConfigError("missing one of cert or cert_file");
  if (tls.keyFile === "" && tls.key === "") throw new WebConfigError("missing one of key or key_file");
  const readFile =
    options.readFile ??
    ((path: string) =>
      readRegularFileSync(path, { maxBytes: MAX_TLS_FILE_BYTES, what: "a TLS certificate, key or CA file" }));
  const read = (path: string, what: string) => {
    try {
      return readFile(path);
    } catch (error) {
      throw new WebConfigError(
        `failed to read ${what} (${path}): ${goPathError(error as NodeJS.ErrnoException)}`,
        {
          cause: error,
        },
      );
    }
  };
  const cert = tls.certFile !== "" ? read(tls.certFile, "cert_file") : Buffer.from(tls.cert);
  const key = tls.keyFile !== "" ? read(tls.keyFile, "key_file") : Buffer.from(tls.key);
  try {
    const leaf = new X509Certificate(cert);
    if (!leaf.checkPrivateKey(createPrivateKey(key)))
      throw new Error("private key does not match public key");
  } catch (error) {
    throw new WebConfigError(`failed to load X509KeyPair: ${(error as Error).message}`, { cause: error });
  }
  let caText = "";
  if (tls.clientCaFile !== "") {
    try {
      caText = readFile(tls.clientCaFile).toString("utf8");
    } catch (error) {
      throw new WebConfigError(goPathError(error as NodeJS.ErrnoException), { cause: error });
    }
  } else caText = tls.clientCa;
  // x509.CertPool.AppendCertsFromPEM: every CERTIFICATE block that parses, anything else skipped.
  const ca = [...caText.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)]
    .map((m) => m[0])
    .filter((pem) => {
      try {
        new X509Certificate(pem);
        return true;
      } catch {
        return false;
      }
    });
  const clientAuth = clientAuthOf(tls.clientAuthType);
  if ((tls.clientCaFile !== "" || tls.clientCa !== "") && clientAuth === "NoClientCert")
    throw new WebConfigError("Client CA's have been configured without a Client Auth Policy");
  if (options.http2 && tls.cipherSuites.length > 0 && tls.minVersion !== "TLSv1.3") {
    if (!tls.cipherSuites.some((c) => HTTP2_REQUIRED.includes(c)))
      throw new WebConfigError(
        `http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of ${HTTP2_REQUIRED.join(" or ")})`,
      );
  }
  for (const [name, version] of [
    ["min_version", tls.minVersion],
    ["max_version", tls.maxVersion],
  ] as const) {
    // Refused rather than ignored: node's OpenSSL offers TLS 1.0 and 1.1 only at security level 0, which also lets
    // in every weak cipher; upstream's Go would serve them.
    if (version === "TLSv1" || version === "TLSv1.1")
      throw new WebConfigError(
        `${name}: ${version === "TLSv1" ? "TLS10" : "TLS11"} is not supported here (node's OpenSSL serves TLS 1.2 and 1.3 only); use TLS12 or TLS13`,
      );
  }
  if (tls.minVersion === "TLSv1.3" && tls.maxVersion === "TLSv1.2")
    throw new WebConfigError("min_version TLS13 is above max_version TLS12: no TLS version is left to serve");
  const allowed = tls.cipherSuites.length > 0 ? new Set(tls.cipherSuites) : GO_DEFAULT_TLS12;
  const tls12 = GO_TLS12_ORDER.filter((c) => allowed.has(c)).map((c) => GO_CIPHER_SUITES.get(c));
  const context: SecureContextOptions = {
    cert,
    key,
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    // Go's order, not the client's; ChaCha20 first when the client lists it first, as Go's `aesgcmPreferred`.
    honorCipherOrder: true,
    secureOptions: cryptoConstants.SSL_OP_PRIORITIZE_CHACHA,
    ciphers: [TLS13_SUITES, ...tls12].join(":"),
    ...(tls.curvePreferences.length > 0
      ? { ecdhCurve: tls.curvePreferences.map((c) => GO_CURVES.get(c)).join(":") }
      : {}),
    ...(ca.length > 0 ? { ca } : {}),
  };
  try {
    createSecureContext(context);
  } catch (error) {
    throw new WebConfigError(`TLS settings refused by node: ${(error as Error).message}`, { cause: error });
  }
  return {
    context,
    clientAuth,
    verify: clientAuth === "VerifyClientCertIfGiven" || clientAuth === "RequireAndVerifyClientCert",
    hasCa: tls.clientCaFile !== "" || tls.clientCa !== "" ? ca.length > 0 : true,
    allowedSans: tls.clientAllowedSans,
  };
}

function clientAuthOf(value: string): ClientAuth {
  switch (value) {
    case "":
    case "NoClientCert":
      return "NoClientCert";
    case "RequestClientCert":
      return "RequestClientCert";
    // "RequireClientCert" is upstream's alias kept for backwards compatibility.
    case "RequireAnyClientCert":
    case "RequireClientCert":
      return "RequireAnyClientCert";
    case "VerifyClientCertIfGiven":
      return "VerifyClientCertIfGiven";
    case "RequireAndVerifyClientCert":
      return "RequireAndVerifyClientCert";
    default:
      throw new WebConfigError(`Invalid ClientAuth: ${value}`);
  }
}

/**
 * The subject alternative names of a certificate as Go lists them for `client_allowed_sans`: DNS names, e-mail
 * addresses, IP addresses, URIs (exporter-toolkit `VerifyPeerCertificate`).
 */
export function subjectAltNames(raw: Buffer): string[] {
  const text = new X509Certificate(raw).subjectAltName ?? "";
  const out: string[] = [];
  // node writes `DNS:a, IP Address:1.2.3.4, email:x, URI:y`; a value with special characters is JSON-quoted.
  for (const m of text.matchAll(/(DNS|email|IP Address|URI):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)) {
    const value = m[2]?.startsWith('"') ? (JSON.parse(m[2]) as string) : (m[2] ?? "");
    out.push(m[1] === "IP Address" ? normalizeIp(value) : value);
  }
  return out;
}

/** Go's `net.IP.String()`: IPv6 in its shortest form. */
function normalizeIp(ip: string): string {
  if (!ip.includes(":")) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}
