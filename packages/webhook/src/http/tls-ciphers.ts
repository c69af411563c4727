import { TlsError } from "../errors.js";

/**
 * The cipher suites upstream's `-list-cipher-suites` prints (Go's `tls.CipherSuites()`, in Go's order), each with the
 * OpenSSL name Node uses and whether it is a TLS 1.3 suite (upstream tls.go).
 */
const SUITES: readonly (readonly [go: string, openssl: string, tls13: boolean])[] = [
  ["TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA", false],
  ["TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA", false],
  ["TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256", false],
  ["TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384", false],
  ["TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", true],
  ["TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", true],
  ["TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", true],
  ["TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA", false],
  ["TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA", false],
  ["TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA", false],
  ["TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA", false],
  ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256", false],
  ["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384", false],
  ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256", false],
  ["TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384", false],
  ["TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305", false],
  ["TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305", false],
];

/** `-list-cipher-suites`: the suites usable at `-tls-min-version` or above, one Go name a line. */
export function listCipherSuites(minVersion: string): string {
  const only13 = minVersion === "1.3";
  return SUITES.filter(([, , tls13]) => tls13 || !only13)
    .map(([go]) => `${go}\n`)
    .join("");
}

/**
 * `-cipher-suites`: Go names, comma-separated, as an OpenSSL cipher list for Node; empty means Node's defaults.
 *
 * @throws {TlsError} naming the first unknown suite, as upstream refuses it
 */
export function openSslCiphers(goNames: string): string | undefined {
  if (goNames === "") return undefined;
  return goNames
    .split(",")
    .map((want) => {
      const suite = SUITES.find(([go]) => go === want);
      if (suite === undefined) throw new TlsError(`error: unknown TLS cipher suite: ${want}`);
      return suite[1];
    })
    .join(":");
}
