import assert from "node:assert/strict";
import { constants } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { WebConfigError } from "../errors.js";
import { buildTlsSettings, subjectAltNames } from "./tls-settings.js";
import { parseWebConfig } from "./web-config.js";

// The web config test files, after exporter-toolkit's web/testdata cases (test/fixtures/web-config/README.md).
const DATA = fileURLToPath(new URL("../../../test/fixtures/web-config/", import.meta.url));
const settings = (text: string) =>
  buildTlsSettings(parseWebConfig(text, `${DATA}web.yml`).tls, { http2: true });
const PAIR = 'tls_server_config:\n  cert_file: "server.crt"\n  key_file: "server.key"\n';

test("client_auth_type's five values (and the old alias), verification and the CA", () => {
  const cases: [string, string, boolean][] = [
    ["", "NoClientCert", false],
    ["RequestClientCert", "RequestClientCert", false],
    ["RequireClientCert", "RequireAnyClientCert", false],
    ["RequireAnyClientCert", "RequireAnyClientCert", false],
    ["VerifyClientCertIfGiven", "VerifyClientCertIfGiven", true],
    ["RequireAndVerifyClientCert", "RequireAndVerifyClientCert", true],
  ];
  for (const [written, clientAuth, verify] of cases) {
    const s = settings(`${PAIR}${written ? `  client_auth_type: ${written}\n` : ""}`);
    assert.equal(s.clientAuth, clientAuth, written);
    assert.equal(s.verify, verify, written);
    // No CA configured: Go's system roots, node's root store.
    assert.equal(s.hasCa, true);
  }
  const withCa = settings(
    `${PAIR}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: client_selfsigned.pem\n`,
  );
  assert.equal(withCa.hasCa, true);
  // /dev/null holds no certificate: Go's empty pool verifies no client.
  assert.equal(
    settings(`${PAIR}  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: /dev/null\n`).hasCa,
    false,
  );
});

test("ciphers: Go's names become OpenSSL's for TLS 1.2, TLS 1.3's suites are kept; curves and versions", () => {
  const s = settings(
    `${PAIR}  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n  curve_preferences: [CurveP521, X25519]\n  max_version: TLS12\n`,
  );
  assert.equal(
    s.context.ciphers,
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256",
  );
  assert.equal(s.context.ecdhCurve, "P-521:X25519");
  assert.equal(s.context.minVersion, "TLSv1.2");
  assert.equal(s.context.maxVersion, "TLSv1.2");
  assert.equal(s.context.honorCipherOrder, true);
});

test("ciphers in Go's preference order whatever the file's order; Go's ECDHE defaults; ChaCha20 when the client prefers it", () => {
  const listed = settings(
    `${PAIR}  cipher_suites: [TLS_RSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
  prefer_server_cipher_suites: false
`,
  );
  assert.equal(
    listed.context.ciphers,
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:AES128-SHA",
  );
  // prefer_server_cipher_suites has no effect on Go's choice since Go 1.17.
  assert.equal(listed.context.honorCipherOrder, true);
  assert.equal(
    settings(PAIR).context.ciphers,
    [
      "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384",
      "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
      "ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA",
    ].join(":"),
  );
  assert.equal(
    (settings(PAIR).context.secureOptions ?? 0) & constants.SSL_OP_PRIORITIZE_CHACHA,
    constants.SSL_OP_PRIORITIZE_CHACHA,
  );
});

test("upstream's refusals, in upstream's order and words", () => {
  const refused: [string, RegExp][] = [
    ["tls_server_config:\n  key_file: server.key\n", /^missing one of cert or cert_file$/],
    ["tls_server_config:\n  cert_file: server.crt\n", /^missing one of key or key_file$/],
    [
      'tls_server_config:\n  cert_file: "nope.crt"\n  key_file: "server.key"\n',
      /failed to read cert_file .*no such file/,
    ],
    [
      'tls_server_config:\n  cert_file: "server.crt"\n  key_file: "client_selfsigned.key"\n',
      /failed to load X509KeyPair/,
    ],
    [`${PAIR}  client_auth_type: x\n`, /^Invalid ClientAuth: x$/],
    [
      `${PAIR}  client_ca_file: client_selfsigned.pem\n`,
      /Client CA's have been configured without a Client Auth Policy/,
    ],
    [`${PAIR}  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]\n`, /missing an HTTP\/2-required/],
    [`${PAIR}  min_version: TLS11\n`, /min_version: TLS11 is not supported here/],
    [`${PAIR}  min_version: TLS13\n  max_version: TLS12\n`, /no TLS version is left/],
  ];
  for (const [text, message] of refused)
    assert.throws(
      () => settings(text),
      (e: unknown) => e instanceof WebConfigError && message.test(e.message),
      text,
    );
});

test("SANs as Go lists them for client_allowed_sans", () => {
  assert.deepEqual(subjectAltNames(readFileSync(`${DATA}client2_selfsigned.pem`)), ["test3"]);
  assert.deepEqual(subjectAltNames(readFileSync(`${DATA}server.crt`)), [
    "localhost",
    "127.0.0.1",
    "127.0.0.0",
  ]);
});
