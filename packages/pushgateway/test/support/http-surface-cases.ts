// Seeded requests and web configurations for http-surface-fuzz.peers.test.ts: paths of the push API's URL grammar
// (every way a grouping key can be written, and miswritten), the other routes under route prefixes, basic-auth
// headers and exporter-toolkit web config files. Everything is a pure function of the random source, so a seed replays
// a case exactly; the bcrypt hashes a config names are made afterwards by support/bcrypt-hashes.ts.
import type { Step } from "./peer-compare.js";

type Rand = () => number;

const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const chance = (r: Rand, p: number): boolean => r() < p;
const upTo = (r: Rand, n: number): number => Math.floor(r() * (n + 1));

// Label names a path may carry: valid ones (some spelled like Object.prototype properties), invalid and reserved ones.
const NAMES = [
  "a",
  "b",
  "instance",
  "job",
  "le",
  "constructor",
  "toString",
  "hasOwnProperty",
  "_x",
  "A1",
  "U__a_2e_b",
];
const BAD_NAMES = ["__name__", "__x", "__proto__", "1a", "a-b", "a.b", "", "é", "a b", "x@base64", "a=b"];
// Values as text; how each travels in the path is drawn apart (encoded, raw, base64, broken).
const VALUES = [
  "x",
  "y",
  "",
  "é",
  "日本",
  "a b",
  "=",
  "==",
  "a=b",
  "+",
  "%",
  "..",
  ".",
  "~",
  "a/b",
  "ÿ",
  "a\u0000b",
];
const ESCAPES_OK = ["%41", "%2F", "%2f", "%3D", "%25", "%C3%A9", "%20", "%2B", "%40"];
const ESCAPES_BAD = ["%", "%4", "%zz", "%FF", "%C3", "%00", "%0A", "%0D", "%252F", "%E2%82"];

/** A path segment from a value: percent-encoded, `=` and `/` left raw, raw UTF-8 or Latin-1 bytes, broken escapes. */
function segment(r: Rand, value: string): string {
  const encoded = encodeURIComponent(value);
  switch (upTo(r, 7)) {
    case 0:
      // `=` and `/` as they are: `/` then splits the value in two.
      return encoded.replaceAll("%3D", "=").replaceAll("%2F", "/");
    case 1:
      // The UTF-8 bytes raw in the request line (node sends a path's chars up to U+00FF as single bytes).
      return Buffer.from(value)
        .toString("latin1")
        .replace(/[\0-\x20\x7f#?%]/g, (c) => encodeURIComponent(c));
    case 2:
      // Latin-1 bytes raw: not UTF-8 when the value has é or ÿ.
      return /^[\x21-\xff]*$/.test(value) && !/[#?%]/.test(value) ? value : encoded;
    case 3:
      return `${encoded}${pick(r, ESCAPES_OK)}`;
    case 4:
      return `${encoded}${pick(r, ESCAPES_BAD)}`;
    default:
      return encoded;
  }
}

/** base64url of a value in one of the forms a client may write: padded or not, over-padded, broken on purpose. */
function base64(r: Rand, value: string): string {
  const raw = Buffer.from(value).toString("base64url");
  const std = Buffer.from(value).toString("base64");
  switch (upTo(r, 9)) {
    case 0:
      return raw.padEnd(Math.ceil(raw.length / 4) * 4, "=");
    case 1:
      return `${raw}===`;
    case 2:
      // The standard alphabet: `+` is refused, `/` splits the segment.
      return std;
    case 3:
      return `${raw.slice(0, 1)}=${raw.slice(1)}`;
    case 4: {
      // A length Go's decoder cannot end (4n+1 characters).
      let odd = `${raw}A`;
      while (odd.length % 4 !== 1) odd += "A";
      return odd;
    }
    case 5:
      // Newlines inside, which Go's decoder skips.
      return `${raw.slice(0, 2)}%0A${raw.slice(2)}%0D`;
    case 6:
      return `${raw}%3D`;
    case 7:
      return raw === "" ? "" : `${raw}.`;
    default:
      return raw === "" ? pick(r, ["=", "==", "===="]) : raw;
  }
}

/** A grouping-key path after the route prefix: `/metrics/job…/<job>` and label pairs, each of them perhaps wrong. */
export function pushPath(r: Rand): string {
  const jobKey = chance(r, 0.85)
    ? pick(r, ["job", "job", "job@base64"])
    : pick(r, ["JOB", "job@BASE64", "job@base64@base64", "jobs", "job%40base64", "j%6Fb"]);
  const jobValue = chance(r, 0.9) ? pick(r, ["j1", "j2", "é", "__proto__", "constructor"]) : pick(r, VALUES);
  let path = `/metrics/${jobKey}/${jobKey.startsWith("job@base64") && chance(r, 0.85) ? base64(r, jobValue) : segment(r, jobValue)}`;
  for (let i = upTo(r, 3); i > 0; i--) {
    const name = chance(r, 0.8) ? pick(r, NAMES) : pick(r, BAD_NAMES);
    const value = pick(r, VALUES);
    const b64 = chance(r, 0.4);
    path += `/${segment(r, name)}${b64 ? "@base64" : ""}`;
    // Now and then a name without its value (an odd number of components).
    if (!chance(r, 0.05)) path += `/${b64 ? base64(r, value) : segment(r, value)}`;
  }
  if (chance(r, 0.03)) path += `/long/${"v".repeat(2000 + upTo(r, 6000))}`;
  if (chance(r, 0.08)) path += pick(r, ["/", "//", "/./", "/../x"]);
  if (chance(r, 0.05)) path = path.replace("/metrics/", pick(r, ["//metrics/", "/metrics//", "/metrics/./"]));
  return path;
}

/** Paths of the other routes, and of none. */
const OTHER = [
  "/metrics",
  "/prom",
  "/prom/",
  "/metrics/",
  "/api/v1/status",
  "/api/v1/metrics",
  "/api/v1/admin/wipe",
  "/api/v1/admin/wipe/",
  "/api/v1/",
  "/api/v1/nope",
  "/-/healthy",
  "/-/ready",
  "/-/quit",
  "/-/",
  "/",
  "/status",
  "/nope",
  "/metrics/job",
  "/metrics/job/",
  "/metrics/job@base64",
  "/metrics/jobx/a",
  "/%zz",
  "/a%2Fb",
  "/%C3%A9",
  "/metrics/%6Aob/j",
];

/** A body for a write: pushes that succeed, clash, fail to parse, or are empty. */
const BODIES = [
  "m 1\n",
  'm{a="x"} 2\n',
  "",
  "# TYPE m counter\nm 3\n",
  "not a metric\n",
  "m 1 1000\n",
  "n 4\n",
];

export interface Variant {
  /** The flags both gateways start with. */
  readonly args: readonly string[];
  /** The route prefix they compute from them (`--web.route-prefix`, else the external URL's path). */
  readonly prefix: string;
  /** Whether `/-/quit` would end them (then it is sent only at the end). */
  readonly lifecycle: boolean;
  /** `--web.telemetry-path` as upstream cleans it, when not `/metrics`. */
  readonly telemetryPath?: string;
}

/** One request of a variant's sequence. */
export function surfaceStep(r: Rand, variant: Variant): Step {
  const method = chance(r, 0.04)
    ? pick(r, ["PURGE", "PROPFIND", "FOO"])
    : pick(r, ["PUT", "PUT", "POST", "POST", "DELETE", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH"]);
  let path = chance(r, 0.75) ? pushPath(r) : pick(r, OTHER);
  if (variant.prefix !== "") {
    const p = variant.prefix;
    path = chance(r, 0.85)
      ? `${p}${path}`
      : `${pick(r, ["", p.toUpperCase(), `${p}/`, `${p}x`, p.slice(0, -1)])}${path}`;
  }
  if (chance(r, 0.05)) path += pick(r, ["?", "?a=b", "?%zz", "?x=%00&y", "#frag"]);
  if (variant.lifecycle && /\/-\/quit/.test(path) && (method === "PUT" || method === "POST"))
    return { method: "GET", path };
  if (method !== "PUT" && method !== "POST") return { method, path };
  return { method, path, body: pick(r, BODIES), headers: { "Content-Type": "text/plain; version=0.0.4" } };
}

// ---- web configs

/** A user of a generated config: its name, its password's bytes and the bcrypt form to hash it in. */
export interface User {
  readonly name: string;
  readonly password: Buffer;
  /** `$2a$`, `$2b$`, `$2y$`: the prefix the hash is written with. */
  readonly prefix: "2a" | "2b" | "2y";
  /** A damage done to the hash once made (none: it is used as made). */
  readonly damage: "" | "short" | "dollar" | "cost03" | "cost32" | "costxx" | "version3" | "trailing";
}

/** A generated web config: its YAML with `{{hash:N}}` where user N's hash goes, its users, whether it has TLS. */
export interface WebCase {
  readonly yaml: string;
  readonly users: readonly User[];
  readonly tls: boolean;
}

const USER_NAMES = [
  "alice",
  "bob",
  "__proto__",
  "constructor",
  "é",
  "a:b",
  "",
  "with space",
  "toString",
  "日本",
];
const PASSWORDS = [
  "secret",
  "",
  "pässwörd",
  "colon:inside",
  "x".repeat(72),
  `${"x".repeat(72)}tail`,
  " spaced ",
];
const HEADERS: readonly [string, readonly string[]][] = [
  ["X-Frame-Options", ["deny", "sameorigin", "allow", "DENY"]],
  ["X-Content-Type-Options", ["nosniff", "sniff", ""]],
  ["Strict-Transport-Security", ["max-age=31536000", ""]],
  ["X-XSS-Protection", ["1; mode=block", "0"]],
  ["Content-Security-Policy", ["default-src 'self'"]],
  ["Content-Type", ["text/plain"]],
  ["__proto__", ["x"]],
  ["x-frame-options", ["deny"]],
];

/** A YAML double-quoted string (JSON's escapes are YAML's). */
const q = (s: string) => JSON.stringify(s);

/** A web config with 0-3 users, headers, http2, perhaps TLS with the package's test certificate, and now and then a mistake. */
export function webCase(r: Rand, certDir: string): WebCase {
  const lines: string[] = [];
  const users: User[] = [];
  const userCount = upTo(r, 3);
  if (userCount > 0 || chance(r, 0.1)) {
    lines.push(chance(r, 0.05) ? "basic_auth_users: [a]" : "basic_auth_users:");
    for (let i = 0; i < userCount; i++) {
      const name = chance(r, 0.7) ? pick(r, USER_NAMES.slice(0, 2)) : pick(r, USER_NAMES);
      const password = chance(r, 0.1)
        ? Buffer.from([0x61, 0xff, 0xfe, 0x62])
        : Buffer.from(pick(r, PASSWORDS));
      const damage = chance(r, 0.85)
        ? ""
        : pick(r, ["short", "dollar", "cost03", "cost32", "costxx", "version3", "trailing"] as const);
      users.push({ name, password, prefix: pick(r, ["2a", "2b", "2y"] as const), damage });
      lines.push(`  ${q(name)}: ${chance(r, 0.5) ? `"{{hash:${i}}}"` : `{{hash:${i}}}`}`);
    }
  }
  if (chance(r, 0.5)) {
    lines.push("http_server_config:");
    if (chance(r, 0.4))
      lines.push(`  http2: ${pick(r, ["true", "false", "yes", "off", "1", '"true"', "[]"])}`);
    if (chance(r, 0.6)) {
      lines.push("  headers:");
      for (let i = 1 + upTo(r, 2); i > 0; i--) {
        const [name, values] = chance(r, 0.8) ? pick(r, HEADERS.slice(0, 5)) : pick(r, HEADERS);
        lines.push(`    ${name}: ${q(pick(r, values))}`);
      }
    }
  }
  let tls = false;
  if (chance(r, 0.25)) {
    tls = true;
    lines.push("tls_server_config:");
    if (!chance(r, 0.05)) lines.push(`  cert_file: ${q(`${certDir}/server.crt`)}`);
    if (!chance(r, 0.05))
      lines.push(`  key_file: ${q(chance(r, 0.05) ? `${certDir}/nope.key` : `${certDir}/server.key`)}`);
    if (chance(r, 0.4))
      lines.push(
        `  client_auth_type: ${pick(r, ["NoClientCert", "RequestClientCert", "VerifyClientCertIfGiven", "Bogus", '""'])}`,
      );
    if (chance(r, 0.2)) lines.push(`  client_ca_file: ${q(`${certDir}/tls-ca-chain.pem`)}`);
    if (chance(r, 0.3)) lines.push(`  min_version: ${pick(r, ["TLS12", "TLS13", "TLS14", "tls12"])}`);
    if (chance(r, 0.2)) lines.push(`  max_version: ${pick(r, ["TLS12", "TLS13"])}`);
    if (chance(r, 0.2))
      lines.push(
        `  cipher_suites: [${pick(r, ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_NOPE"])}]`,
      );
    if (chance(r, 0.2)) lines.push(`  curve_preferences: [${pick(r, ["X25519", "CurveP256", "CurveP255"])}]`);
    if (chance(r, 0.1)) lines.push(`  prefer_server_cipher_suites: ${pick(r, ["true", "maybe"])}`);
  }
  // Mistakes yaml.v2's strict decoder names: an unknown key, a duplicate, a value of the wrong type.
  if (chance(r, 0.15)) {
    const at = upTo(r, lines.length);
    const indent = at > 0 && (lines[at - 1] ?? "").startsWith("  ") ? "  " : "";
    lines.splice(
      at,
      0,
      `${indent}${pick(r, ["nope: 1", "constructor: x", "__proto__: {}", "Cert_file: x"])}`,
    );
  }
  if (chance(r, 0.08) && lines.length > 0)
    lines.push(
      pick(
        r,
        lines.filter((l) => !l.startsWith(" ")),
      ),
    );
  if (chance(r, 0.05))
    lines.push(pick(r, ["tls_server_config: x", "http_server_config: [1]", "basic_auth_users: 5"]));
  return { yaml: `${lines.join("\n")}\n`, users, tls };
}

/** An `Authorization` header for a config's users: right, wrong, unknown, malformed, or none (undefined). */
export function authHeader(r: Rand, users: readonly User[]): string | undefined {
  const user = users.length > 0 ? pick(r, users) : undefined;
  const name = user?.name ?? "alice";
  const password = user?.password ?? Buffer.from("secret");
  const creds = (u: string | Buffer, p: Buffer) => Buffer.concat([Buffer.from(u), Buffer.from(":"), p]);
  const b64 = (b: Buffer) => b.toString("base64");
  const right = creds(name, password);
  switch (upTo(r, 15)) {
    case 0:
      return undefined;
    case 1:
      return `Basic ${b64(creds(name, Buffer.from("wrong")))}`;
    case 2:
      return `Basic ${b64(creds("nobody", password))}`;
    case 3:
      return `basic ${b64(right)}`;
    case 4:
      return `BASIC ${b64(right)}`;
    case 5:
      return `Basic ${b64(right).replace(/=+$/, "")}`;
    case 6:
      return `Basic ${b64(right)}=`;
    case 7:
      return pick(r, ["Basic", "Basic ", "Bearer x", "Digest username=alice", "Basic !!!", "Basic Og=="]);
    case 8:
      return `Basic  ${b64(right)}`;
    case 9:
      return `Basic ${b64(Buffer.from(name))}`;
    case 10:
      return `Basic ${Buffer.from(right).toString("base64url")}`;
    case 11:
      // The password's bytes cut at 72, or longer: bcrypt reads 72.
      return `Basic ${b64(creds(name, Buffer.concat([password, Buffer.from("zz")])))}`;
    case 12:
      return `Basic ${b64(creds(Buffer.from([0x61, 0xff]), password))}`;
    default:
      return `Basic ${b64(right)}`;
  }
}

/** A hash as a config may hold it by mistake: cut short, without its `$`, cost or version out of range, too long. */
export function damagedHash(hash: string, damage: User["damage"]): string {
  switch (damage) {
    case "short":
      return hash.slice(0, 40);
    case "dollar":
      return `x${hash.slice(1)}`;
    case "cost03":
      return hash.replace("$04$", "$03$");
    case "cost32":
      return hash.replace("$04$", "$32$");
    case "costxx":
      return hash.replace("$04$", "$x4$");
    case "version3":
      return hash.replace(/^\$2/, "$3");
    case "trailing":
      return `${hash}x`;
    default:
      return hash;
  }
}
