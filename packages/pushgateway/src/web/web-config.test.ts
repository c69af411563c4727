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
    // Duplicates as yaml.v2's strict decoder words them (a map's at the second value's line, a field's at its key's),
    // after the errors before them; checked beside 1.5.1 by http-surface-fuzz.peers.test.ts.
    [
      "basic_auth_users:\n  a: x\n  a:\n    y\n",
      'yaml: unmarshal errors:\n  line 4: key "a" already set in map',
    ],
    [
      "nope: 1\nhttp_server_config:\n  http2: true\nhttp_server_config: {}\n",
      "yaml: unmarshal errors:\n  line 1: field nope not found in type web.Config\n  line 4: field http_server_config already set in type web.Config",
    ],
    [
      "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Frame-Options: deny\n  http2: true\n  http2: false\n",
      'yaml: unmarshal errors:\n  line 4: key "X-Frame-Options" already set in map\n  line 6: field http2 already set in type web.HTTPConfig',
    ],
    // The users' map holds prometheus/common's config.Secret, read through its `plain` type (checked beside 1.5.1).
    [
      "basic_auth_users: x\n",
      "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `x` into map[string]config.Secret",
    ],
    [
      "basic_auth_users:\n  a: {}\n  b: [x]\n",
      "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!map into config.plain\n  line 3: cannot unmarshal !!seq into config.plain",
    ],
    [
      "http_server_config:\n  headers: [x]\n",
      "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!seq into map[string]string",
    ],
    // Keys spelled like Object.prototype properties are keys like any other.
    ["constructor: 1\n", "yaml: unmarshal errors:\n  line 1: field constructor not found in type web.Config"],
    ["tls_server_config:\n  toString: x\n", /line 2: field toString not found in type web\.TLSConfig/],
    ["http_server_config:\n  headers:\n    __proto__: x\n", 'HTTP header "__proto__" can not be configured'],
    // A long value cut to 7 bytes, and the custom types read through a string (exporter-toolkit's UnmarshalYAML).
    [
      "tls_server_config:\n  cipher_suites: TLS_AES_128_GCM_SHA256\n",
      "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!str `TLS_AES...` into []web.Cipher",
    ],
    [
      "tls_server_config:\n  cipher_suites:\n    - TLS_AES_128_GCM_SHA256\n    - {a: b}\n  min_version: [TLS13]\n",
      "yaml: unmarshal errors:\n  line 4: cannot unmarshal !!map into string\n  line 5: cannot unmarshal !!seq into string",
    ],
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

// Found by http-surface-fuzz beside 1.5.1 (which then served HTTP/1.1 only, and took a cipher list HTTP/2 refuses).
test("a section or field given as null takes yaml.v2's zero value: http2 false; an empty file keeps the defaults", () => {
  assert.equal(parseWebConfig("", "/w").http2, true);
  assert.equal(parseWebConfig("http_server_config:\n", "/w").http2, false);
  assert.equal(parseWebConfig("http_server_config: ~\n", "/w").http2, false);
  assert.equal(parseWebConfig("http_server_config:\n  http2:\n", "/w").http2, false);
  assert.equal(parseWebConfig("~\n", "/w").http2, false);
  const c = parseWebConfig("tls_server_config:\n  prefer_server_cipher_suites:\n  min_version:\n", "/w");
  assert.equal(c.tls.preferServerCipherSuites, false);
  assert.equal(c.tls.minVersion, "TLSv1.2");
  assert.equal(parseWebConfig("rate_limit:\n  burst:\n", "/w").rateLimit.burst, 0);
});

test("a user or header named like an Object.prototype property is kept: __proto__ alone still asks for credentials", () => {
  const c = parseWebConfig("basic_auth_users:\n  __proto__: $2y$10$x\n  constructor: $2y$10$y\n", "/w");
  assert.deepEqual(
    [...c.users],
    [
      ["__proto__", "$2y$10$x"],
      ["constructor", "$2y$10$y"],
    ],
  );
  const h = parseWebConfig("http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "/w");
  assert.deepEqual([...h.headers], [["X-Frame-Options", "deny"]]);
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
