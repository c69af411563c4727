// Seeded random hooks files and requests for test/parity-fuzz.peers.test.ts: every hook and request is drawn from
// small pools (keys spelled like Object.prototype properties, dotted names, Go-number texts, Unicode, empty values)
// so that names hit payloads often, and every value stays inside what ours promises to answer as Go does (the
// package README's "Differences that remain": no non-UTF-8 bytes, no RE2-only regular expressions, no
// backtracking-prone patterns).
import { createHmac } from "node:crypto";

/** mulberry32: a tiny seeded generator, so a failing case can be replayed from its seed and index. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  times<T>(max: number, make: () => T): T[] {
    return Array.from({ length: this.int(max + 1) }, make);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One `pass-*` argument or rule parameter as the hooks file spells it. */
interface Argument {
  source: string;
  name: string;
  envname?: string;
  base64decode?: boolean;
}

const KEYS = ["a", "b", "x.y", "0", "é", "constructor", "__proto__", "toString", "k k"] as const;
const STRINGS = [
  "",
  "s3",
  "héllo",
  "a&b<c>",
  "😀",
  "line\nbreak",
  " sp ",
  'tok"en',
  "42",
  "true",
  "aGk=",
  "t\tab",
  '{"a":{"b":"<c>"}}',
  "{}",
];
const NUMBERS = ["0", "-0", "1e3", "1E+3", "-1.50", "12345678901234567890", "3.14e-2", "42"];
const HEADER_NAMES = [
  "X-Token",
  "x-token",
  "X-Multi",
  "Constructor",
  "__proto__",
  "X_Under",
  "hasownproperty",
  "content-type",
  "x.dot",
  "-lead",
  "x--y",
  "1a-b",
  "X-Token ",
];
const HEADER_VALUES = [
  "",
  "v",
  "s3",
  "José",
  "a,b",
  "42",
  " sp",
  "a\tb",
  "x".repeat(5000),
  "application/json",
  '{"a":[1]}',
];
const SIG_HEADERS = ["X-Hub-Signature", "x-hub-signature-256", "X-Sig"];
const SECRETS = ["s3cret", "", "é-key"];
const ALGS = ["sha1", "sha256", "sha512"] as const;
const REGEXES = ["^s", "3$", ".*", "a|b", "^$", "[0-9]+", "(", "\\d{2,}", "é", "^(?i)S3$", "x\\.y"];
const IP_RANGES = ["127.0.0.1", "127.0.0.0/8", "10.0.0.0/8", "::1", "10.0.0.1 127.0.0.1/32", "nope", ""];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/json",
  "APPLICATION/JSON",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=XyZ123",
  "multipart/form-data",
  "application/xml",
  "text/xml",
  "text/plain",
  "",
];
const ODD_IDS = ["constructor", "__proto__", "a b/é", "toString", "yes", "hasOwnProperty"];
const STATUS_CODES = [200, 201, 202, 204, 299, 304, 418, 999, 0];
/** The boundary multipart bodies use (the Content-Types above name it). */
const BOUNDARY = "XyZ123";

function name(rng: Rng): string {
  if (rng.chance(0.05)) return rng.pick(["", "a.", ".a", "a..b", "root.01", "root.-0", "x.y.0"]);
  const segs = rng.times(2, () => (rng.chance(0.25) ? String(rng.int(3)) : rng.pick(KEYS)));
  return [rng.pick(KEYS), ...segs].join(".");
}

function argument(rng: Rng): Argument {
  const r = rng.next();
  if (r < 0.5) return { source: "payload", name: name(rng) };
  if (r < 0.6) return { source: "header", name: rng.pick([...HEADER_NAMES, ...SIG_HEADERS]) };
  if (r < 0.7) return { source: rng.pick(["url", "query"]), name: rng.pick(KEYS) };
  if (r < 0.75) return { source: "request", name: rng.pick(["method", "METHOD", "bogus"]) };
  if (r < 0.8) return { source: "string", name: rng.pick(STRINGS) };
  if (r < 0.95)
    return {
      source: rng.pick(["raw-request-body", "entire-payload", "entire-headers", "entire-query"]),
      name: "e",
    };
  return { source: "bogus", name: "x" };
}

function matchRule(rng: Rng): Json {
  const r = rng.next();
  const parameter = argument(rng) as unknown as Json;
  if (r < 0.35) return { type: "value", value: rng.pick([...STRINGS, ...NUMBERS]), parameter };
  if (r < 0.55) return { type: "regex", regex: rng.pick(REGEXES), parameter };
  if (r < 0.8) {
    const alg = rng.pick(ALGS);
    return {
      type: rng.chance(0.9) ? `payload-hmac-${alg}` : `payload-hash-${alg}`,
      secret: rng.pick(SECRETS),
      parameter: { source: rng.chance(0.9) ? "header" : "url", name: rng.pick(SIG_HEADERS) },
    };
  }
  if (r < 0.9) return { type: "ip-whitelist", "ip-range": rng.pick(IP_RANGES) };
  if (r < 0.97) return { type: "scalr-signature", secret: rng.pick(SECRETS) };
  return { type: "no-such-type", value: "x", parameter };
}

function rule(rng: Rng, depth: number): Json {
  const r = depth > 2 ? 1 : rng.next();
  if (r < 0.2) return { and: rng.times(3, () => rule(rng, depth + 1)) };
  if (r < 0.4) return { or: rng.times(3, () => rule(rng, depth + 1)) };
  if (r < 0.5) return { not: rule(rng, depth + 1) };
  return { match: matchRule(rng) };
}

/** A hook as the hooks file holds it, and what the runner must know about it. */
export interface FuzzHook {
  /** The recorder's name, `h<i>` (the hook's id is `def.id`, now and then an odd one). */
  readonly id: string;
  readonly def: Record<string, Json>;
  /** The recorder's options: exit code, and a line on stderr (written 150 ms after the start). */
  readonly recorder: { readonly exit: number; readonly stderr: boolean };
  /** The command runs after the answer. */
  readonly async: boolean;
}

/** Hook `h<i>`; `command` is the recorder path the runner writes for it. */
export function fuzzHook(rng: Rng, i: number, command: string): FuzzHook {
  const id = `h${i}`;
  // Ids spelled like Object.prototype properties, with a space, a slash or non-ASCII: looked up as any other.
  const hookId = i % 8 === 7 ? (ODD_IDS[(i - 7) / 8] ?? id) : id;
  const sync = rng.chance(0.7);
  const def: Record<string, Json> = { id: hookId, "execute-command": command };
  if (sync) def["include-command-output-in-response"] = true;
  if (sync && rng.chance(0.3)) def["include-command-output-in-response-on-error"] = true;
  if (rng.chance(0.4)) def["response-message"] = rng.pick(STRINGS);
  if (rng.chance(0.3))
    def["response-headers"] = rng.times(2, () => ({
      name: rng.pick(["X-Resp", "Content-Type", "x-lower", "Set-Cookie"]),
      value: rng.pick(["1", "", "application/json", "é"]),
    }));
  if (rng.chance(0.3)) def["success-http-response-code"] = rng.pick(STATUS_CODES);
  if (rng.chance(0.3)) def["trigger-rule-mismatch-http-response-code"] = rng.pick(STATUS_CODES);
  if (rng.chance(0.15)) def["incoming-payload-content-type"] = rng.pick(CONTENT_TYPES);
  if (rng.chance(0.2))
    def["http-methods"] = rng.pick([["POST"], ["get", " put "], ["Post"], [], ["POST", "HEAD"]]);
  if (rng.chance(0.2)) def["trigger-signature-soft-failures"] = true;
  const args = rng.times(4, () => argument(rng));
  if (args.length > 0) def["pass-arguments-to-command"] = args as unknown as Json;
  const env = rng.times(3, () => ({
    ...argument(rng),
    ...(rng.chance(0.4) ? { envname: rng.pick(["E1", "MY_VAR", "e.x", "", "A=B"]) } : {}),
  }));
  if (env.length > 0) def["pass-environment-to-command"] = env as unknown as Json;
  if (rng.chance(0.25))
    def["pass-file-to-command"] = rng.times(2, () => ({
      ...argument(rng),
      ...(rng.chance(0.5) ? { envname: rng.pick(["F1", "MY_FILE", ""]) } : {}),
      ...(rng.chance(0.3) ? { base64decode: true } : {}),
    }));
  // Names without a dot: upstream panics on any dotted one (README "Differences that remain").
  if (rng.chance(0.2))
    def["parse-parameters-as-json"] = rng.times(2, () => ({
      source: rng.pick(["payload", "header", "query"]),
      name: rng.pick(KEYS.filter((k) => !k.includes("."))),
    }));
  if (rng.chance(0.55)) def["trigger-rule"] = rule(rng, 0);
  const recorder = { exit: rng.chance(0.2) ? 3 : 0, stderr: rng.chance(0.1) };
  return { id, def, recorder, async: !sync };
}

function jsonString(rng: Rng, s: string): string {
  const text = JSON.stringify(s);
  return rng.chance(0.3)
    ? text.replace(/[^\x20-\x7e]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : text;
}

function jsonValue(rng: Rng, depth: number): string {
  const r = depth > 2 ? rng.next() * 0.6 : rng.next();
  if (r < 0.3) return jsonString(rng, rng.pick(STRINGS));
  if (r < 0.45) return rng.pick(NUMBERS);
  if (r < 0.55) return rng.pick(["true", "false", "null"]);
  if (r < 0.75) return `[${rng.times(3, () => jsonValue(rng, depth + 1)).join(",")}]`;
  return jsonObject(rng, depth + 1);
}

function jsonObject(rng: Rng, depth: number): string {
  const pairs = rng.times(
    4,
    () => `${jsonString(rng, rng.pick(KEYS))}:${rng.pick(["", " "])}${jsonValue(rng, depth)}`,
  );
  return `{${pairs.join(",")}}`;
}

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

function xmlElement(rng: Rng, depth: number): string {
  const tag = rng.pick(["r", "a", "b", "c"]);
  const attrs = rng.times(2, () => ` ${rng.pick(["x", "y"])}${rng.int(9)}="${xmlEscape(rng.pick(STRINGS))}"`);
  const inner =
    depth > 1 || rng.chance(0.4)
      ? xmlEscape(rng.pick(STRINGS))
      : rng.times(3, () => xmlElement(rng, depth + 1)).join("");
  return `<${tag}${[...new Set(attrs)].join("")}>${inner}</${tag}>`;
}

/** A form or query key or value, percent-encoded or raw; raw bytes past 0x7e in a target are refused by ours (README). */
const formPart = (s: string, rng: Rng) =>
  rng.chance(0.7) ? encodeURIComponent(s) : encodeURI(s.replace(/[&=#%\n+ "]/g, ""));

function form(rng: Rng): string {
  return rng
    .times(4, () => {
      const key = formPart(rng.pick(KEYS), rng);
      return rng.chance(0.15) ? key : `${key}=${formPart(rng.pick([...STRINGS, ...NUMBERS]), rng)}`;
    })
    .join("&");
}

function multipart(rng: Rng): string {
  const parts = rng.times(3, () => {
    const field = rng.pick(KEYS);
    if (rng.chance(0.3))
      return `Content-Disposition: form-data; name="${field}"; filename="f.json"\r\nContent-Type: ${rng.pick(["application/json", "text/plain"])}\r\n\r\n${jsonObject(rng, 1)}`;
    return `Content-Disposition: form-data; name="${field}"\r\n\r\n${rng.pick(STRINGS)}`;
  });
  return `${parts.map((p) => `--${BOUNDARY}\r\n${p}\r\n`).join("")}--${BOUNDARY}--\r\n`;
}

function body(rng: Rng, contentType: string): string {
  const kind = rng.chance(0.85) ? contentType : rng.pick(CONTENT_TYPES);
  if (kind.includes("multipart")) return multipart(rng);
  if (kind.toLowerCase().includes("json")) {
    if (rng.chance(0.15)) return `[${jsonObject(rng, 1)}]`;
    if (rng.chance(0.7)) return jsonObject(rng, 0);
    return rng.pick([
      "5",
      `\uFEFF${jsonObject(rng, 0)}`,
      ` \r\n\t${jsonObject(rng, 0)}`,
      `${jsonObject(rng, 0)} trailing`,
      '{"a":"\\ud800x","b":"\\u00e9\\u0000"}',
      `${'{"a":'.repeat(40)}1${"}".repeat(40)}`,
      '{"a":1,}',
    ]);
  }
  if (kind.includes("form-urlencoded"))
    return rng.chance(0.9) ? form(rng) : rng.pick(["a=1;b=2", "%zz=1&a=2", "=v&a"]);
  if (kind.includes("xml")) {
    if (rng.chance(0.8))
      return `${rng.pick(["", '<?xml version="1.0"?>', "<!-- c -->"])}${xmlElement(rng, 0)}`;
    return rng.pick([
      "<r><a>",
      "<r/>",
      '<h:r xmlns:h="urn:x"><h:a>1</h:a></h:r>',
      "<r><![CDATA[a<b]]><a>1</a>t</r>",
      "<r>1</r><r>2</r>",
    ]);
  }
  return rng.pick(["", "plain text", jsonObject(rng, 0)]);
}

/** The hmac and scalr matches of a rule tree. */
function signatureRules(def: Json, out: Record<string, Json>[] = []): Record<string, Json>[] {
  if (Array.isArray(def)) for (const d of def) signatureRules(d, out);
  else if (def !== null && typeof def === "object") {
    const type = def.type;
    if (typeof type === "string" && (type.startsWith("payload-h") || type === "scalr-signature"))
      out.push(def);
    else for (const v of Object.values(def)) signatureRules(v, out);
  }
  return out;
}

function hmacHex(alg: string, secret: string, data: string): string {
  return createHmac(alg, secret).update(data).digest("hex");
}

/** Go's "Mon 02 Jan 2006 15:04:05 MST" layout, `offset` seconds from now. */
function scalrDate(offset: number): string {
  const [weekday, day, mon, year, time] = new Date(Date.now() + offset * 1000)
    .toUTCString()
    .replace(",", "")
    .split(" ");
  return `${weekday} ${day} ${mon} ${year} ${time} GMT`;
}

/** The server flags a seed runs both sides with: `-urlprefix` and `-http-methods` (empty: none given). */
export function fuzzFlags(rng: Rng): { urlPrefix: string; httpMethods: string } {
  return {
    urlPrefix: rng.pick(["hooks", "hooks", "", "api/v1"]),
    httpMethods: rng.pick(["", "", "post, Put", "GET"]),
  };
}

/** One request, exactly as the raw client sends it. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: [string, string][];
  readonly body?: string | Buffer;
}

/** A request to `hook`: signatures right, wrong, several, upper-cased or missing for each of its signature rules. */
export function fuzzRequest(
  rng: Rng,
  hook: FuzzHook,
  flags: { readonly urlPrefix: string; readonly httpMethods: string },
): FuzzRequest {
  // Mostly a method the hook or -http-methods allows, so most requests get past the method check.
  const own = hook.def["http-methods"];
  const allowed = Array.isArray(own) && own.length > 0 ? own.map(String) : flags.httpMethods.split(",");
  const method =
    allowed[0] !== "" && rng.chance(0.7)
      ? rng.pick(allowed).trim().toUpperCase()
      : rng.pick(["POST", "POST", "POST", "POST", "GET", "PUT", "Post", "HEAD"]);
  const urlPrefix = flags.urlPrefix;
  const query = rng.times(3, () =>
    rng.chance(0.9)
      ? `${formPart(rng.pick(KEYS), rng)}=${formPart(rng.pick(STRINGS), rng)}`
      : rng.pick(["%zz=1", "a;b=2", "=v", "a", "a=%"]),
  );
  const id = rng.chance(0.03)
    ? rng.pick(["valueOf", "isPrototypeOf", "__defineGetter__"])
    : String(hook.def.id);
  const base = urlPrefix === "" ? "" : `/${urlPrefix}`;
  const path = `${base}/${id.split("/").map(encodeURIComponent).join("/")}${query.length > 0 ? `?${query.join("&")}` : ""}`;
  const headers: [string, string][] = [];
  const contentType = rng.pick(CONTENT_TYPES);
  if (rng.chance(0.9)) headers.push(["Content-Type", contentType]);
  for (const [k, v] of rng.times(
    3,
    () => [rng.pick(HEADER_NAMES), rng.pick(HEADER_VALUES)] as [string, string],
  ))
    headers.push([k, v]);
  const text = method === "GET" && rng.chance(0.5) ? undefined : body(rng, contentType);
  const raw = text ?? "";
  const sigs = new Map<string, string[]>();
  for (const r of signatureRules(hook.def["trigger-rule"] ?? null)) {
    const secret = String(r.secret);
    if (r.type === "scalr-signature") {
      const variant = rng.int(4);
      if (variant === 3) continue;
      const date = scalrDate(variant === 2 ? -3600 : 0);
      headers.push(["X-Signature", variant === 1 ? "0".repeat(40) : hmacHex("sha1", secret, raw + date)]);
      headers.push(["Date", date]);
      continue;
    }
    const alg = String(r.type).replace(/^payload-(hmac|hash)-/, "");
    const param = r.parameter as { name: string };
    const right = hmacHex(alg, secret, raw);
    const variant = rng.pick(["right", "prefixed", "wrong", "upper", "missing", "multi", "spaced"]);
    const sig = {
      right,
      prefixed: `${alg}=${right}`,
      wrong: `${alg}=${"0".repeat(right.length)}`,
      upper: `${alg}=${right.toUpperCase()}`,
      missing: "",
      multi: `${alg}=bad,${alg}=${right}`,
      spaced: `${alg}=bad, ${alg}=${right}`,
    }[variant] as string;
    if (variant !== "missing") sigs.set(param.name, [...(sigs.get(param.name) ?? []), sig]);
  }
  let sigQuery = "";
  for (const [header, values] of sigs) {
    headers.push([header, values.join(",")]);
    sigQuery += `&${header}=${encodeURIComponent(values.join(","))}`;
  }
  const fullPath = sigQuery === "" ? path : `${path}${path.includes("?") ? "" : "?"}${sigQuery}`;
  if (rng.chance(0.05)) headers.push(["Expect", "100-continue"]);
  // Now and then the body goes chunked, in random pieces (signatures are over the decoded body, as servers see it).
  if (text !== undefined && text !== "" && rng.chance(0.1)) {
    headers.push(["Transfer-Encoding", "chunked"]);
    const bytes = Buffer.from(text);
    let chunked = "";
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + rng.int(bytes.length - at);
      chunked += `${size.toString(16)}\r\n${bytes.subarray(at, at + size).toString("latin1")}\r\n`;
      at += size;
    }
    return { method, path: fullPath, headers, body: Buffer.from(`${chunked}0\r\n\r\n`, "latin1") };
  }
  return { method, path: fullPath, headers, ...(text === undefined ? {} : { body: text }) };
}
