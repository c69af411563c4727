import assert from "node:assert/strict";
import { test } from "node:test";
import { getCiphers } from "node:tls";
import { GO_CIPHER_SUITES } from "./tls-cipher-suites.js";

test("every Go suite names a TLS suite node's OpenSSL has; the three TLS 1.3 suites are marked", () => {
  const known = new Set(getCiphers());
  for (const suite of GO_CIPHER_SUITES)
    assert.ok(known.has(suite.openssl.toLowerCase()), `${suite.go} → ${suite.openssl}`);
  assert.deepEqual(
    GO_CIPHER_SUITES.filter((s) => s.tls13).map((s) => s.go),
    ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"],
  );
});
