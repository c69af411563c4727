/** One of Go's TLS cipher suites: its Go name, the OpenSSL name node uses, whether it is a TLS 1.3 suite. */
export interface GoCipherSuite {
  readonly go: string;
  readonly openssl: string;
  readonly tls13: boolean;
}

/**
 * Go's `tls.CipherSuites()`, in Go's order, with OpenSSL's names: what webhook's `-cipher-suites` and
 * `-list-cipher-suites` (upstream tls.go) and exporter-toolkit's `cipher_suites` (web/tls_config.go) accept.
 */
export const GO_CIPHER_SUITES: readonly GoCipherSuite[] = (
  [
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
  ] as const
).map(([go, openssl, tls13]) => ({ go, openssl, tls13 }));
