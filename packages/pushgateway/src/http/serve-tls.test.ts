import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { TlsSettings } from "../web/tls-settings.js";
import type { ClientAuth } from "../web/web-config.js";
import { alertRecord, classifyFirstRecord, clientCertRefusal } from "./serve-tls.js";

const DATA = fileURLToPath(new URL("../../../test/fixtures/web-config/", import.meta.url));

test("the first record: TLS, a plain HTTP request (net/http's five prefixes), SSLv2, anything else", () => {
  const head = (s: string | number[]) => Buffer.from(typeof s === "string" ? Buffer.from(s, "latin1") : s);
  assert.equal(classifyFirstRecord(head([22, 3, 1, 0, 200])), "tls");
  assert.equal(classifyFirstRecord(head([21, 3, 3, 0, 2])), "alert");
  // A version from 16.0 up is no TLS client (crypto/tls readRecordOrCCS).
  assert.equal(classifyFirstRecord(head([22, 0x10, 0, 0, 2])), "other");
  assert.equal(classifyFirstRecord(head([0x80, 0x2e, 1, 3, 1])), "sslv2");
  for (const start of ["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"])
    assert.equal(classifyFirstRecord(head(start)), "http", start);
  for (const start of ["DELET", "PATCH", "GET h", "get /", "PUT h"])
    assert.equal(classifyFirstRecord(head(start)), "other", start);
});

test("alert records as Go writes them", () => {
  assert.equal(alertRecord(0x0303, 42).toString("hex"), "1503030002022a");
  assert.equal(alertRecord(0x0301, 80).toString("hex"), "15030100020250");
});

const policy = (clientAuth: ClientAuth, extra: Partial<TlsSettings> = {}): TlsSettings => ({
  context: {},
  clientAuth,
  verify: clientAuth === "VerifyClientCertIfGiven" || clientAuth === "RequireAndVerifyClientCert",
  hasCa: true,
  allowedSans: undefined,
  ...extra,
});

test("a client certificate judged as crypto/tls and exporter-toolkit judge it", () => {
  const cert = readFileSync(`${DATA}client2_selfsigned.pem`); // SAN DNS:test3
  const none = { raw: undefined, authorized: false };
  const trusted = { raw: cert, authorized: true };
  const untrusted = { raw: cert, authorized: false, authorizationError: "UNABLE_TO_GET_ISSUER_CERT" };
  const refused = (p: TlsSettings, peer: Parameters<typeof clientCertRefusal>[1]) =>
    clientCertRefusal(p, peer)?.alert;
  // [policy, peer, refused with alert / without / served]
  const cases: [TlsSettings, Parameters<typeof clientCertRefusal>[1], boolean | undefined][] = [
    [policy("NoClientCert"), none, undefined],
    [policy("NoClientCert", { allowedSans: ["x"] }), none, undefined],
    [policy("RequestClientCert"), none, undefined],
    [policy("RequestClientCert"), untrusted, undefined],
    [policy("RequireAnyClientCert"), none, true],
    [policy("RequireAnyClientCert"), untrusted, undefined],
    [policy("VerifyClientCertIfGiven"), none, undefined],
    [policy("VerifyClientCertIfGiven"), untrusted, true],
    [policy("VerifyClientCertIfGiven"), trusted, undefined],
    [policy("RequireAndVerifyClientCert"), none, true],
    [policy("RequireAndVerifyClientCert"), untrusted, true],
    [policy("RequireAndVerifyClientCert"), trusted, undefined],
    // A CA bundle without a certificate verifies nobody, whatever node's default roots say.
    [policy("RequireAndVerifyClientCert", { hasCa: false }), trusted, true],
    // client_allowed_sans: checked whenever a certificate was asked for...
    [policy("RequireAndVerifyClientCert", { allowedSans: ["one", "test3"] }), trusted, undefined],
    [policy("RequireAndVerifyClientCert", { allowedSans: ["bad"] }), trusted, true],
    [policy("RequireAnyClientCert", { allowedSans: ["bad"] }), untrusted, true],
    [policy("RequestClientCert", { allowedSans: ["test3"] }), untrusted, undefined],
    // ...and without one, exporter-toolkit's VerifyPeerCertificate fails (upstream panics; the connection is dropped).
    [policy("RequestClientCert", { allowedSans: ["test3"] }), none, false],
    [policy("VerifyClientCertIfGiven", { allowedSans: ["test3"] }), none, false],
  ];
  for (const [p, peer, expected] of cases)
    assert.equal(
      refused(p, peer),
      expected,
      `${p.clientAuth} sans=${p.allowedSans?.join(",")} cert=${peer.raw ? peer.authorized : "none"}`,
    );
  assert.match(
    clientCertRefusal(policy("RequireAndVerifyClientCert", { allowedSans: ["bad"] }), trusted)?.reason ?? "",
    /^could not find allowed SANs in client cert, found: \[bad\]$/,
  );
});
