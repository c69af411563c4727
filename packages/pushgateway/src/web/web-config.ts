import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { goQuote } from "@local/go-compat/quote";
import { GO_CIPHER_SUITES as GO_SUITES } from "@local/go-compat/tls-cipher-suites";
import type { Node, Scalar } from "yaml";
import { WebConfigError } from "../errors.js";

/**
 * Go's TLS cipher suite names (crypto/tls `CipherSuites()`, which exporter-toolkit's `Cipher` accepts) and OpenSSL's
 * names for them. The TLS 1.3 suites map to nothing: Go does not let them be configured (tls.Config.CipherSuites
 * applies to TLS 1.2 and lower only), so neither do we.
 */
export const GO_CIPHER_SUITES: ReadonlyMap<string, string | undefined> = new Map(
  GO_SUITES.map((s) => [s.go, s.tls13 ? undefined : s.openssl]),
);

/** exporter-toolkit's `curves` (web/tls_config.go) and OpenSSL's names for them. */
export const GO_CURVES: ReadonlyMap<string, string> = new Map([
  ["CurveP256", "P-256"],
  ["CurveP384", "P-384"],
  ["CurveP521", "P-521"],
  ["X25519", "X25519"],
]);

/** exporter-toolkit's `tlsVersions` and node's names for them. */
const GO_TLS_VERSIONS: ReadonlyMap<string, "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3"> = new Map([
  ["TLS10", "TLSv1"],
  ["TLS11", "TLSv1.1"],
  ["TLS12", "TLSv1.2"],
  ["TLS13", "TLSv1.3"],
] as const);

/** exporter-toolkit's `extraHTTPHeaders`: the headers a config may set, and the values allowed (any when absent). */
const EXTRA_HTTP_HEADERS: ReadonlyMap<string, readonly string[] | undefined> = new Map([
  ["Strict-Transport-Security", undefined],
  ["X-Content-Type-Options", ["nosniff"]],
  ["X-Frame-Options", ["deny", "sameorigin"]],
  ["X-XSS-Protection", undefined],
  ["Content-Security-Policy", undefined],
]);

/** Go's five `client_auth_type` values (plus the empty default and the old alias `RequireClientCert`). */
export type ClientAuth =
  | "NoClientCert"
  | "RequestClientCert"
  | "RequireAnyClientCert"
  | "VerifyClientCertIfGiven"
  | "RequireAndVerifyClientCert";

/** `tls_server_config`, paths already joined with the config file's directory (config_util.JoinDir). */
export interface TlsServerConfig {
  readonly cert: string;
  readonly key: string;
  readonly clientCa: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** As written; checked when the TLS settings are built, as upstream's ConfigToTLSConfig does. */
  readonly clientAuthType: string;
  readonly clientCaFile: string;
  /** Go names, in order. */
  readonly cipherSuites: readonly string[];
  /** Go names, in order. */
  readonly curvePreferences: readonly string[];
  readonly minVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  readonly maxVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  readonly preferServerCipherSuites: boolean;
  /** Undefined when the key is absent (no SAN check), as upstream's nil slice. */
  readonly clientAllowedSans: readonly string[] | undefined;
}

/** The whole of exporter-toolkit's web configuration file (docs/web-configuration.md). */
export interface WebConfigFile {
  readonly tls: TlsServerConfig;
  readonly http2: boolean;
  /** Header name → value, set on every answer. */
  readonly headers: ReadonlyMap<string, string>;
  /** `rate_limit`: `intervalMs` 0 means no limiter. */
  readonly rateLimit: { readonly burst: number; readonly intervalMs: number };
  /** User → password hash. */
  readonly users: ReadonlyMap<string, string>;
}

/** Whether the TLS section turns TLS on (exporter-toolkit `TLSConfig.IsEnabled`). */
export function tlsEnabled(tls: TlsServerConfig): boolean {
  return (
    tls.certFile !== "" ||
    tls.cert !== "" ||
    tls.keyFile !== "" ||
    tls.key !== "" ||
    tls.clientCaFile !== "" ||
    tls.clientCa !== "" ||
    tls.clientAuthType !== ""
  );
}

type Kind = "string" | "bool" | "int" | "duration" | "cipher" | "curve" | "tlsVersion";
/** `map`: the Go type of the values, `string` or prometheus/common's `config.Secret` (the passwords' hashes). */
type Field =
  | Kind
  | { readonly list: Kind }
  | { readonly map: "string" | "secret" }
  | { readonly struct: string };

/** The Go types of the file, by Go's type name (named in the errors as yaml.v2 names them). */
const TYPES: Readonly<Record<string, Readonly<Record<string, Field>>>> = {
  "web.Config": {
    tls_server_config: { struct: "web.TLSConfig" },
    http_server_config: { struct: "web.HTTPConfig" },
    rate_limit: { struct: "web.RateLimiterConfig" },
    basic_auth_users: { map: "secret" },
  },
  "web.TLSConfig": {
    cert: "string",
    key: "string",
    client_ca: "string",
    cert_file: "string",
    key_file: "string",
    client_auth_type: "string",
    client_ca_file: "string",
    cipher_suites: { list: "cipher" },
    curve_preferences: { list: "curve" },
    min_version: "tlsVersion",
    max_version: "tlsVersion",
    prefer_server_cipher_suites: "bool",
    client_allowed_sans: { list: "string" },
  },
  "web.HTTPConfig": { http2: "bool", headers: { map: "string" } },
  "web.RateLimiterConfig": { burst: "int", interval: "duration" },
};

/**
 * Parses a web configuration file as exporter-toolkit's `getConfig` does: yaml.v2 `UnmarshalStrict` (an unknown key,
 * a duplicate key or a value of the wrong type is an error naming its line), then the header check; relative paths
 * are taken from the file's directory.
 *
 * @throws {WebConfigError} naming what is wrong
 */
export function parseWebConfig(text: string, path: string): WebConfigFile {
  const lines = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, {
    version: "1.1",
    // Duplicates are reported below as yaml.v2's strict decoder words them, in document order with the other errors.
    uniqueKeys: false,
    lineCounter: lines,
    prettyErrors: false,
  });
  if (doc.errors.length > 0) throw new WebConfigError(`yaml: ${doc.errors[0]?.message ?? "invalid YAML"}`);
  const problems: string[] = [];
  const lineOf = (node: Node | null | undefined) => lines.linePos(node?.range?.[0] ?? 0).line;
  const values: Record<string, unknown> = {};
  const readStruct = (
    node: Node | null,
    type: string,
    into: Record<string, unknown>,
    prefix: string,
  ): void => {
    // yaml.v2 sets a struct given as null (`http_server_config:` alone) to its zero value: http2 is then false.
    if (node === null || (yaml().isScalar(node) && node.value === null)) {
      zeroStruct(type, into, prefix);
      return;
    }
    if (!yaml().isMap(node)) {
      problems.push(`line ${lineOf(node)}: cannot unmarshal ${describe(node)} into ${type}`);
      return;
    }
    const fields = TYPES[type] ?? {};
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const name = yaml().isScalar(keyNode) ? String(keyNode.value) : "";
      const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
      if (field === undefined) {
        problems.push(`line ${lineOf(keyNode)}: field ${name} not found in type ${type}`);
        continue;
      }
      // yaml.v2 mappingStruct: a field given twice is an error and the second value is not read.
      if (seen.has(name)) {
        problems.push(`line ${lineOf(keyNode)}: field ${name} already set in type ${type}`);
        continue;
      }
      seen.add(name);
      const valueNode = pair.value as Node | null;
      if (typeof field === "object" && "struct" in field) {
        readStruct(valueNode, field.struct, into, `${prefix}${name}.`);
        continue;
      }
      const value = readField(valueNode, field, (m, at) =>
        problems.push(`line ${lineOf(at ?? valueNode ?? keyNode)}: ${m}`),
      );
      if (value !== undefined) into[`${prefix}${name}`] = value;
    }
  };
  // An empty file has no document, and the defaults stay; a document that is null (`~`) zeroes them.
  if (doc.contents !== null) readStruct(doc.contents as Node | null, "web.Config", values, "");
  if (problems.length > 0) {
    // A custom unmarshaler's error (unknown cipher, curve or TLS version) comes alone, as Go returns it unwrapped.
    const custom = problems.find((p) => /: unknown (cipher|curve|TLS version): /.test(p));
    throw new WebConfigError(
      custom !== undefined
        ? custom.replace(/^line \d+: /, "")
        : `yaml: unmarshal errors:\n  ${problems.join("\n  ")}`,
    );
  }
  const str = (key: string) => (values[key] as string | undefined) ?? "";
  const headers = (values["http_server_config.headers"] as Map<string, string> | undefined) ?? new Map();
  for (const [name, value] of headers) {
    const allowed = EXTRA_HTTP_HEADERS.get(name);
    if (!EXTRA_HTTP_HEADERS.has(name))
      throw new WebConfigError(`HTTP header "${name}" can not be configured`);
    if (allowed !== undefined && !allowed.includes(value)) {
      throw new WebConfigError(
        `invalid value for ${name}. Expected one of: [${allowed.map((a) => `"${a}"`).join(" ")}], but got: "${value}"`,
      );
    }
  }
  const dir = dirname(path);
  // config_util.JoinDir: a relative, non-empty path is taken from the config file's directory.
  const joinDir = (p: string) => (p === "" || isAbsolute(p) ? p : join(dir, p));
  return {
    tls: {
      cert: str("tls_server_config.cert"),
      key: str("tls_server_config.key"),
      clientCa: str("tls_server_config.client_ca"),
      certFile: joinDir(str("tls_server_config.cert_file")),
      keyFile: joinDir(str("tls_server_config.key_file")),
      clientAuthType: str("tls_server_config.client_auth_type"),
      clientCaFile: joinDir(str("tls_server_config.client_ca_file")),
      cipherSuites: (values["tls_server_config.cipher_suites"] as string[] | undefined) ?? [],
      curvePreferences: (values["tls_server_config.curve_preferences"] as string[] | undefined) ?? [],
      minVersion: (values["tls_server_config.min_version"] as TlsServerConfig["minVersion"]) ?? "TLSv1.2",
      maxVersion: (values["tls_server_config.max_version"] as TlsServerConfig["maxVersion"]) ?? "TLSv1.3",
      preferServerCipherSuites: (values["tls_server_config.prefer_server_cipher_suites"] as boolean) ?? true,
      clientAllowedSans: values["tls_server_config.client_allowed_sans"] as string[] | undefined,
    },
    http2: (values["http_server_config.http2"] as boolean | undefined) ?? true,
    headers,
    rateLimit: {
      burst: (values["rate_limit.burst"] as number | undefined) ?? 0,
      intervalMs: (values["rate_limit.interval"] as number | undefined) ?? 0,
    },
    users: (values.basic_auth_users as Map<string, string> | undefined) ?? new Map(),
  };
}

/** yaml.v2's name of a node in "cannot unmarshal" errors: its tag and, for a scalar, its text. */
function describe(node: Node): string {
  if (yaml().isMap(node)) return "!!map";
  if (yaml().isSeq(node)) return "!!seq";
  const scalar = node as Scalar;
  const tag = scalarTag(scalar);
  // yaml.v2 terror: a value over 10 bytes is cut to its first 7 and `...`.
  const text = Buffer.from(String(scalar.source ?? scalar.value));
  return `${tag} \`${text.length > 10 ? `${text.subarray(0, 7).toString()}...` : text.toString()}\``;
}

function scalarTag(scalar: Scalar): string {
  const v = scalar.value;
  if (v === null) return "!!null";
  if (typeof v === "boolean") return "!!bool";
  if (typeof v === "number")
    return Number.isInteger(v) && !/[.eE]/.test(String(scalar.source ?? "")) ? "!!int" : "!!float";
  return "!!str";
}

/**
 * One value of a field; undefined for YAML null (the field keeps its default, as yaml.v2 leaves a zero value). A
 * problem names the node it is about when that is not `node` itself.
 */
function readField(node: Node | null, field: Field, problem: (message: string, at?: Node) => void): unknown {
  if (node === null || (yaml().isScalar(node) && node.value === null)) return zeroOf(field);
  if (typeof field === "object" && "list" in field) {
    if (!yaml().isSeq(node)) {
      problem(`cannot unmarshal ${describe(node)} into []${goTypeName(field.list)}`);
      return undefined;
    }
    const out: unknown[] = [];
    for (const item of node.items) {
      const v = readField(item as Node | null, field.list, (m, at) => problem(m, at ?? (item as Node)));
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  if (typeof field === "object" && "map" in field) {
    if (!yaml().isMap(node)) {
      problem(
        `cannot unmarshal ${describe(node)} into ${field.map === "secret" ? "map[string]config.Secret" : "map[string]string"}`,
      );
      return undefined;
    }
    // A Map: a user or header named `__proto__` is a key like any other (a plain object dropped it, and a file whose
    // only user it was served without basic auth).
    const out = new Map<string, string>();
    for (const pair of node.items) {
      const k = pair.key as Node | null;
      const v = pair.value as Node | null;
      if (!yaml().isScalar(k) || (v !== null && !yaml().isScalar(v))) {
        // config.Secret unmarshals itself through its `plain` type, which yaml.v2 then names.
        problem(
          `cannot unmarshal ${describe((v ?? k) as Node)} into ${field.map === "secret" ? "config.plain" : "string"}`,
          (v ?? k) as Node,
        );
        continue;
      }
      const key = String(k.source ?? k.value);
      // yaml.v2 setMapIndex: a key given twice is an error at the second value's line.
      if (out.has(key)) {
        problem(`key ${goQuote(key)} already set in map`, (v ?? k) as Node);
        continue;
      }
      out.set(key, v === null || v.value === null ? "" : String(v.source ?? v.value));
    }
    return out;
  }
  if (typeof field === "object") return undefined;
  if (!yaml().isScalar(node)) {
    // Cipher, Curve and TLSVersion unmarshal themselves through a string (exporter-toolkit tls_config.go), so
    // yaml.v2 names that type.
    const custom = field === "cipher" || field === "curve" || field === "tlsVersion";
    problem(`cannot unmarshal ${describe(node)} into ${custom ? "string" : goTypeName(field)}`);
    return undefined;
  }
  // yaml.v2 puts any scalar's text into a string (`X-XSS-Protection: 1` is "1").
  const text = String(node.source ?? node.value);
  switch (field) {
    case "string":
      return text;
    case "bool":
      if (typeof node.value === "boolean") return node.value;
      problem(`cannot unmarshal ${describe(node)} into bool`);
      return undefined;
    case "int":
      if (scalarTag(node) === "!!int") return node.value as number;
      problem(`cannot unmarshal ${describe(node)} into int`);
      return undefined;
    case "duration": {
      // yaml.v2 takes an integer as nanoseconds and a string through time.ParseDuration.
      const ms =
        typeof node.value === "string"
          ? parseGoDuration(node.value)
          : scalarTag(node) === "!!int"
            ? (node.value as number) / 1e6
            : undefined;
      if (ms === undefined) problem(`cannot unmarshal ${describe(node)} into time.Duration`);
      return ms;
    }
    case "cipher":
      if (GO_CIPHER_SUITES.has(text)) return text;
      problem(`unknown cipher: ${text}`);
      return undefined;
    case "curve":
      if (GO_CURVES.has(text)) return text;
      problem(`unknown curve: ${text}`);
      return undefined;
    case "tlsVersion": {
      const v = GO_TLS_VERSIONS.get(text);
      if (v === undefined) problem(`unknown TLS version: ${text}`);
      return v;
    }
  }
}

/**
 * yaml.v2's zero value for a field given as null: false, "", 0. Lists and maps are nil (absent), and so is a TLS
 * version (Go's default then, which for the minimum is TLS 1.0, refused here: README "Deliberate differences").
 */
function zeroOf(field: Field): unknown {
  if (field === "bool") return false;
  if (field === "string") return "";
  if (field === "int" || field === "duration") return 0;
  return undefined;
}

/** Every field of a struct type (nested ones too) set to its zero value, as yaml.v2 sets a struct given as null. */
function zeroStruct(type: string, into: Record<string, unknown>, prefix: string): void {
  for (const [name, field] of Object.entries(TYPES[type] ?? {})) {
    if (typeof field === "object" && "struct" in field) zeroStruct(field.struct, into, `${prefix}${name}.`);
    else {
      const zero = zeroOf(field);
      if (zero === undefined) delete into[`${prefix}${name}`];
      else into[`${prefix}${name}`] = zero;
    }
  }
}

function goTypeName(kind: Kind): string {
  return {
    string: "string",
    bool: "bool",
    int: "int",
    duration: "time.Duration",
    cipher: "web.Cipher",
    curve: "web.Curve",
    tlsVersion: "web.TLSVersion",
  }[kind];
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's `time.ParseDuration` ("1s", "1m30s", "0.5s", "-1h"), in milliseconds; undefined when it does not parse. */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(text);
  if (!m) return undefined;
  if (m[2] === "0") return 0;
  let total = 0;
  for (const part of (m[2] ?? "").matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (DURATION_UNITS[part[2] ?? ""] ?? 0);
  }
  return m[1] === "-" ? -total : total;
}

/**
 * The YAML parser, loaded on first use: only a `--web.config.file` needs it, and loading it at start cost every
 * gateway about 1 MiB of resident memory (bench/pushgateway/README.md). Required synchronously, as the file is also
 * read again per request.
 */
function yaml(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}
let yamlModule: typeof import("yaml") | undefined;
