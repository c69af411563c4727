import assert from "node:assert/strict";
import { test } from "node:test";
import { getCiphers } from "node:tls";
import { TlsError } from "../errors.js";
import { listCipherSuites, openSslCiphers } from "./tls-ciphers.js";

test("-list-cipher-suites prints Go's names; TLS 1.3 minimum keeps only the 1.3 suites", () => {
  assert.equal(listCipherSuites("").split("\n").filter(Boolean).length, 17);
  assert.equal(
    listCipherSuites("1.3"),
    "TLS_AES_128_GCM_SHA256\nTLS_AES_256_GCM_SHA384\nTLS_CHACHA20_POLY1305_SHA256\n",
  );
});

test("-cipher-suites maps Go names to ciphers this Node supports, and refuses unknown names", () => {
  const list = openSslCiphers("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_256_CBC_SHA");
  assert.equal(list, "ECDHE-RSA-AES128-GCM-SHA256:AES256-SHA");
  const known = new Set(getCiphers());
  for (const name of list?.split(":") ?? []) assert.ok(known.has(name.toLowerCase()), name);
  assert.equal(openSslCiphers(""), undefined);
  assert.throws(() => openSslCiphers("FOO"), TlsError);
});
