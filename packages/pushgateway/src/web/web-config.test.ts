import assert from "node:assert/strict";
import { test } from "node:test";
import { WebConfigError } from "../errors.js";
import { parseGoDuration, parseWebConfig, tlsEnabled } from "./web-config.js";

test("every key read, with upstream's defaults and relative paths from the file's directory", () => {
  const c = parseWebConfig(
    [
      "tls_server_config:",
      "  cert_file: server.crt",
      "  key_file: /abs/server.key",
      "  client_auth_type: RequireAndVerifyClientCert",
      "  client_ca_file: ca.pem",
      "  client_allowed_sans: [a, b]",
      "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]",
      "  curve_preferences: [X25519]",
      "  min_version: TLS13",
      "  prefer_server_cipher_suites: no",
      "http_server_config:",
      "  http2: false",
      "  headers:",
      "    X-Frame-Options: deny",
      "    X-XSS-Protection: 1",
      "rate_limit:",
      "  interval: 1m30s",
      "  burst: 5",
      "basic_auth_users:",
      "  alice: $2y$10$abc",
    ].join("\n"),
    "/etc/pg/web.yml",
  );
  assert.equal(c.tls.certFile, "/etc/pg/server.crt");
  assert.equal(c.tls.keyFile, "/abs/server.key");
  assert.equal(c.tls.clientCaFile, "/etc/pg/ca.pem");
  assert.equal(c.tls.clientAuthType, "RequireAndVerifyClientCert");
  assert.deepEqual(c.tls.clientAllowedSans, ["a", "b"]);
  assert.deepEqual(c.tls.cipherSuites, ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]);
  assert.deepEqual(c.tls.curvePreferences, ["X25519"]);
  assert.equal(c.tls.minVersion, "TLSv1.3");
  assert.equal(c.tls.maxVersion, "TLSv1.3");
  // YAML 1.1 as yaml.v2: `no` is false, `1` as a string is "1".
  assert.equal(c.tls.preferServerCipherSuites, false);
  assert.equal(c.http2, false);
  assert.deepEqual(
    [...c.headers],
    [
      ["X-Frame-Options", "deny"],
      ["X-XSS-Protection", "1"],
    ],
  );
  assert.deepEqual(c.rateLimit, { burst: 5, intervalMs: 90_000 });
  assert.deepEqual([...c.users], [["alice", "$2y$10$abc"]]);
  assert.equal(tlsEnabled(c.tls), true);
});

test("an empty file: defaults, no TLS, no users", () => {
  const c = parseWebConfig("", "/x/web.yml");
  assert.equal(tlsEnabled(c.tls), false);
  assert.equal(c.http2, true);
  assert.equal(c.tls.preferServerCipherSuites, true);
  assert.equal(c.tls.clientAllowedSans, undefined);
  assert.equal(c.users.size, 0);
});

test("strict: yaml.v2's messages for an unknown key, a wrong type, a duplicate, a refused value", () => {
  const refused: [string, string | RegExp][] = [
    [
      "tls_server_config:\n  cert_filse: x\n",
      "yaml: unmarshal errors:\n  line 2: field cert_filse not found in type web.TLSConfig",
    ],
    ["nope: 1\n", "yaml: unmarshal errors:\n  line 1: field nope not found in type web.Config"],
    ["http_server_config:\n  http2: maybe\n", /line 2: cannot unmarshal !!str `maybe` into bool/],
    ["rate_limit:\n  burst: 1.5\n", /line 2: cannot unmarshal !!float `1.5` into int/],
    ["tls_server_config: [1]\n", /line 1: cannot unmarshal !!seq into web\.TLSConfig/],
    ["just text\n", /line 1: cannot unmarshal !!str `just text` into web\.Config/],
    ["basic_auth_users:\n  a: x\n  a: y\n", /^yaml: /],
    ["tls_server_config:\n  cipher_suites: [TLS_FOO]\n", "unknown cipher: TLS_FOO"],
    ["tls_server_config:\n  curve_preferences: [CurveP257]\n", "unknown curve: CurveP257"],
    ["tls_server_config:\n  max_version: TLS14\n", "unknown TLS version: TLS14"],
    [
      "http_server_config:\n  headers:\n    Content-Type: x\n",
      'HTTP header "Content-Type" can not be configured',
    ],
    [
      "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
      'invalid value for X-Frame-Options. Expected one of: ["deny" "sameorigin"], but got: "allow"',
    ],
  ];
  for (const [text, message] of refused) {
    assert.throws(
      () => parseWebConfig(text, "/x/web.yml"),
      (e: unknown) =>
        e instanceof WebConfigError &&
        (typeof message === "string" ? e.message === message : message.test(e.message)),
      text,
    );
  }
});

test("Go's time.ParseDuration, and yaml.v2's integer nanoseconds", () => {
  assert.equal(parseGoDuration("1s"), 1000);
  assert.equal(parseGoDuration("1m30s"), 90_000);
  assert.equal(parseGoDuration("0.5s"), 500);
  assert.equal(parseGoDuration("250ms"), 250);
  assert.equal(parseGoDuration("1h"), 3_600_000);
  assert.equal(parseGoDuration("0"), 0);
  assert.equal(parseGoDuration("1d"), undefined);
  assert.equal(parseGoDuration("1"), undefined);
  assert.deepEqual(parseWebConfig("rate_limit:\n  interval: 2000000000\n", "/w").rateLimit.intervalMs, 2000);
});
