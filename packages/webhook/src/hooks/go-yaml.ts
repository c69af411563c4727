import { isAlias, isMap, isPair, isScalar, isSeq, type Node, parseDocument, Scalar, visit } from "yaml";
import { HooksFileError } from "../errors.js";
import { fromBytes, toBytes } from "./go-template/go-text.js";
import { quote } from "./go-template/strconv.js";
import {
  indentQuotedContinuations,
  libyamlDoubleQuoteEscapes,
  spaceCommentsAfterTokens,
} from "./libyaml-lenient.js";
import { libyamlTabError } from "./libyaml-tabs.js";

/** A YAML float, kept apart from integers because upstream renders the two differently in string fields. */
export class GoFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/** A decoded value as ghodss/yaml hands it on: strings, integers (bigint past 2^53), floats, booleans, null. */
export type GoYamlValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | GoFloat
  | GoYamlValue[]
  | { [key: string]: GoYamlValue };

/**
 * Decodes a hooks file the way upstream does: ghodss/yaml over gopkg.in/yaml.v2 (a port of libyaml). The `yaml`
 * package reads the structure; this adds what yaml.v2 does differently:
 * - plain scalars are typed by yaml.v2's `resolve` (resolve.go): YAML 1.1 booleans, `~`/`null`, Go's base-prefixed
 *   integers (`0x1F`, `0o17`, `012`, `0b11`, `_` ignored), floats only with a signed exponent, no base-60 numbers,
 *   timestamps kept as text;
 * - `<<` merges apply in the order they are written (a later key wins, also over an earlier one);
 * - an implicit key spanning lines, or longer than 1024 characters, is not a key (libyaml's simple-key rule), so a
 *   flow mapping holding one followed by `:` is refused with libyaml's `did not find expected ',' or '}'` (the
 *   docs' pass-file example, whose `//` comments the `yaml` package would read as keys);
 * - map keys become strings as ghodss converts them (`yes:` → `"true"`, `1.5:` → `"1.5"`).
 * Where the two readers could disagree on what a file means, the file is refused.
 *
 * @throws {HooksFileError} `error converting YAML to JSON: yaml: line N: …`, as upstream words it
 */
export function decodeGoYaml(source: string): GoYamlValue {
  // libyaml takes a byte order mark at the start of the stream as the encoding's, not as text.
  const bare = source.startsWith("\uFEFF") ? source.slice(1) : source;
  // libyaml's reader takes only its printable characters (reader.c yaml_parser_update_buffer), before any parsing.
  if (!printable(bare)) throw yamlError(0, "control characters are not allowed");
  // A lone CR and NEL end a line for libyaml as LF and CRLF do, and are read as LF (scanner.c IS_BREAK, READ_LINE);
  // the `yaml` package would keep them as characters of the line.
  const escapes = libyamlDoubleQuoteEscapes(indentQuotedContinuations(bare.replace(/\r\n?|\u0085/g, "\n")));
  if (escapes.unknownEscapeAt !== undefined)
    throw yamlError(lineOf(escapes.text, escapes.unknownEscapeAt) - 1, "found unknown escape character");
  let text = escapes.text;
  let doc = parseDocument(text, { version: "1.1", uniqueKeys: false, merge: false });
  for (let round = 0; round < 100; round++) {
    const spaced = spaceCommentsAfterTokens(text, doc.errors);
    if (spaced === text) break;
    text = spaced;
    doc = parseDocument(text, { version: "1.1", uniqueKeys: false, merge: false });
  }
  const first = doc.errors[0];
  if (first !== undefined) {
    const line = first.linePos?.[0].line ?? 1;
    throw yamlError(line, libyamlMessage(first.code, first.message));
  }
  const tab = libyamlTabError(text, doc.contents);
  // yaml.v2 names the line of these counted from 0 (none for the first), as Debian's 2.8.0 printed them.
  if (tab !== undefined) throw yamlError(tab.line, tab.message);
  checkSimpleKeys(doc.contents, text);
  // yaml.v2 resolves an alias after the whole document is read, to the last node given that anchor (so an alias may
  // come before its anchor); the `yaml` package, to the one before it.
  const anchors = new Map<string, Node>();
  const endsInBreak = /[\n\r]$/.test(text);
  visit(doc, (_key, node) => {
    if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor) anchors.set(node.anchor, node);
    // libyaml's anchor and alias names are letters, digits, `-` and `_` (scanner.c yaml_parser_scan_anchor): a
    // template writing `&lt;` where a plain scalar starts makes an anchor libyaml refuses.
    const name = isAlias(node) ? node.source : (node as { anchor?: string } | null)?.anchor;
    if (name !== undefined && !/^[0-9A-Za-z_-]+$/.test(name))
      // A scanner error: yaml.v2 names its line counted from 0, as for the tabs above.
      throw yamlError(
        lineOf(text, (node as Node).range?.[0] ?? 0) - 1,
        "did not find expected alphabetic or numeric character",
      );
    // A block scalar that runs to the end of a file with no final line break: libyaml has no break to keep there,
    // where the `yaml` package adds one (`|` or `>` as the file's last lines).
    if (
      isScalar(node) &&
      !endsInBreak &&
      (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) &&
      (node.range?.[1] ?? 0) >= text.length &&
      typeof node.value === "string" &&
      node.value.endsWith("\n")
    )
      node.value = node.value.slice(0, -1);
  });
  return toGo(doc.contents, anchors, 0);
}

/**
 * Whether libyaml's reader takes every character: not the C0 controls but tab and line ends, nor DEL, the C1
 * controls but NEL, U+FFFE or U+FFFF.
 */
function printable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a && c !== 0x0d : c >= 0x7f && c <= 0x9f ? c !== 0x85 : c >= 0xfffe)
      return false;
  }
  return true;
}

/** yaml.v2's words; a line 0 (a parser error on the first line, which libyaml counts from 0) is not named. */
function yamlError(line: number, message: string): HooksFileError {
  return new HooksFileError(
    `error converting YAML to JSON: yaml: ${line > 0 ? `line ${line}: ` : ""}${message}`,
  );
}

/** libyaml's words for the errors both readers report; otherwise the `yaml` package's first line. */
function libyamlMessage(code: string, message: string): string {
  if (code === "MULTILINE_IMPLICIT_KEY") return "did not find expected ',' or '}'";
  if (code === "TAB_AS_INDENT") return "found character that cannot start any token";
  if (code === "KEY_OVER_1024_CHARS") return "could not find expected ':'";
  if (code === "DUPLICATE_KEY") return "mapping key already defined";
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * libyaml's simple keys: on one line and at most 1024 characters, or they are no key at all. And inside `[…]` or
 * `{…}` (yaml.v2 scannerc.go), `?` and `:` are always indicators, never a plain scalar's start (the `yaml` package
 * reads `{"id": ?x}`), a `?` ends a plain scalar, and a `:` in or right after one that is not followed by a blank is
 * `found unexpected ':'` (`{url: http://x}`, `{a:"b"}`): files libyaml refuses or reads otherwise are refused.
 */
function checkSimpleKeys(node: unknown, text: string, flow?: "]" | "}"): void {
  if (flow !== undefined && isScalar(node) && node.type === Scalar.PLAIN) checkFlowPlain(node, text, flow);
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const range = key?.range;
      // An explicit key (`? key`) is not a simple key.
      const explicit =
        range !== undefined && range !== null && text[lastNonSpaceBefore(text, range[0])] === "?";
      if (range && !explicit && pair.value !== null) {
        // The key starts at its anchor, if it has one (`&a "k": v`): libyaml's simple key does.
        const anchored = key?.anchor ? text.lastIndexOf(`&${key.anchor}`, range[0]) : -1;
        const source = text.slice(anchored >= 0 ? anchored : range[0], range[1]);
        if (source.includes("\n") || source.length > 1024) {
          const colon = text.indexOf(":", range[1]);
          // libyaml reports parser errors on the 0-based line of the token it stopped at.
          if (node.flow) throw yamlError(lineOf(text, colon) - 1, "did not find expected ',' or '}'");
          throw yamlError(lineOf(text, range[0]), "could not find expected ':'");
        }
      }
      checkSimpleKeys(key, text, node.flow ? "}" : flow);
      checkSimpleKeys(pair.value, text, node.flow ? "}" : flow);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) checkSimpleKeys(item, text, node.flow ? "]" : flow);
  } else if (isPair(node)) {
    checkSimpleKeys(node.key, text, flow);
    checkSimpleKeys(node.value, text, flow);
  }
}

/** A plain scalar in a flow collection (closed by `end`), as libyaml's scanner reads it there. */
function checkFlowPlain(node: Scalar, text: string, end: "]" | "}"): void {
  const [from, to] = node.range ?? [0, 0];
  const source = text.slice(from, to);
  const line = lineOf(text, from) - 1;
  if (/^[?:]/.test(source)) throw yamlError(line, "did not find expected node content");
  if (/:(?![\s]|$)/.test(source) || (text[to] === ":" && !/^[\s]?$/.test(text[to + 1] ?? "")))
    throw yamlError(line, "found unexpected ':'");
  if (source.includes("?")) throw yamlError(line, `did not find expected ',' or '${end}'`);
}

const MAX_ALIAS_DEPTH = 64;

function toGo(node: unknown, anchors: ReadonlyMap<string, Node>, depth: number): GoYamlValue {
  if (depth > MAX_ALIAS_DEPTH) throw yamlError(1, "exceeded max depth of 10000");
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    const target = anchors.get(node.source);
    if (target === undefined) throw yamlError(0, `unknown anchor '${node.source}' referenced`);
    return toGo(target, anchors, depth + 1);
  }
  if (isScalar(node)) return scalar(node);
  if (isSeq(node)) return node.items.map((item) => toGo(item, anchors, depth + 1));
  if (isMap(node)) {
    const out: { [key: string]: GoYamlValue } = Object.create(null);
    for (const pair of node.items) {
      const key = pair.key;
      if (isScalar(key) && key.type === Scalar.PLAIN && key.source === "<<" && !key.tag) {
        merge(out, toGo(pair.value, anchors, depth + 1));
        continue;
      }
      const value = toGo(pair.value, anchors, depth + 1);
      out[keyString(toGo(key, anchors, depth + 1), value)] = value;
    }
    return out;
  }
  throw yamlError(1, "unsupported YAML node");
}

/** yaml.v2 `merge`: a mapping, or a sequence of mappings, whose keys are set where the `<<` stands. */
function merge(out: { [key: string]: GoYamlValue }, value: GoYamlValue): void {
  const maps = Array.isArray(value) ? value : [value];
  for (const m of maps) {
    if (m === null || typeof m !== "object" || Array.isArray(m) || m instanceof GoFloat) {
      throw yamlError(1, "map merge requires map or sequence of maps as the value");
    }
    for (const [k, v] of Object.entries(m)) out[k] = v;
  }
}

/** ghodss/yaml's `convertToJSONableObject` for map keys (`value` names itself in its error). */
function keyString(key: GoYamlValue, value: GoYamlValue): string {
  if (typeof key === "string") return key;
  if (typeof key === "number" || typeof key === "bigint") return String(key);
  if (typeof key === "boolean") return key ? "true" : "false";
  if (key instanceof GoFloat) {
    const s = formatFloat32G(key.value);
    return s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s;
  }
  // Go's `%s, key: %+#v, value: %+#v` of the key's type, the key and the value, for a null key and a scalar value.
  const goSyntax = (v: GoYamlValue) =>
    v === null
      ? "<nil>"
      : typeof v === "string"
        ? fromBytes(quote(toBytes(v)))
        : typeof v === "boolean" || typeof v === "number" || typeof v === "bigint"
          ? String(v)
          : undefined;
  const shown = key === null ? goSyntax(value) : undefined;
  throw new HooksFileError(
    `error converting YAML to JSON: Unsupported map key of type: ${key === null ? "%!s(<nil>)" : "map or slice"}${shown === undefined ? "" : `, key: <nil>, value: ${shown}`}`,
  );
}

function scalar(node: Scalar): GoYamlValue {
  if (node.tag !== undefined && node.tag !== "tag:yaml.org,2002:str" && node.tag !== "!!str") {
    // yaml.v2 honours explicit tags with rules of its own; a file relying on them is refused rather than guessed.
    throw yamlError(1, `unsupported tag ${node.tag}`);
  }
  if (node.type !== Scalar.PLAIN || node.tag !== undefined) return String(node.value ?? "");
  return resolvePlain(node.source ?? String(node.value ?? ""));
}

// Maps, not object literals: a scalar spelled `constructor` or `__proto__` must not find Object.prototype's.
const BOOLS: ReadonlyMap<string, boolean> = new Map(
  Object.entries({
    y: true,
    Y: true,
    yes: true,
    Yes: true,
    YES: true,
    true: true,
    True: true,
    TRUE: true,
    on: true,
    On: true,
    ON: true,
    n: false,
    N: false,
    no: false,
    No: false,
    NO: false,
    false: false,
    False: false,
    FALSE: false,
    off: false,
    Off: false,
    OFF: false,
  }),
);
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const SPECIAL_FLOATS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    ".nan": Number.NaN,
    ".NaN": Number.NaN,
    ".NAN": Number.NaN,
    ".inf": Number.POSITIVE_INFINITY,
    ".Inf": Number.POSITIVE_INFINITY,
    ".INF": Number.POSITIVE_INFINITY,
    "+.inf": Number.POSITIVE_INFINITY,
    "+.Inf": Number.POSITIVE_INFINITY,
    "+.INF": Number.POSITIVE_INFINITY,
    "-.inf": Number.NEGATIVE_INFINITY,
    "-.Inf": Number.NEGATIVE_INFINITY,
    "-.INF": Number.NEGATIVE_INFINITY,
  }),
);
// yaml.v2 resolve.go: a float needs a signed exponent, if any.
const YAML_STYLE_FLOAT = /^[-+]?[0-9]*\.?[0-9]+([eE][-+][0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** yaml.v2's `resolve` for an untagged plain scalar. */
export function resolvePlain(text: string): GoYamlValue {
  if (NULLS.has(text)) return null;
  const bool = BOOLS.get(text);
  if (bool !== undefined) return bool;
  const special = SPECIAL_FLOATS.get(text);
  if (special !== undefined) return new GoFloat(special);
  const first = text[0] ?? "";
  if (first === ".") {
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? goFloat(text, text) : text;
  }
  if (!/[-+0-9]/.test(first)) return text;
  const plain = text.replaceAll("_", "");
  const int = goParseInt(plain);
  if (int !== undefined && int >= INT64_MIN && int <= UINT64_MAX) return narrow(int);
  if (YAML_STYLE_FLOAT.test(plain)) return goFloat(plain, text);
  if (/^-?0b[01]+$/.test(plain)) {
    const value = BigInt(plain.replace("0b", "").replace(/^(-?)/, "$10b"));
    if (value >= INT64_MIN && value <= UINT64_MAX) return narrow(value);
  }
  return text;
}

/** A float as yaml.v2's resolve reads it: strconv.ParseFloat, whose overflow (`1e999`) leaves the text a string. */
function goFloat(plain: string, text: string): GoFloat | string {
  const value = Number(plain);
  return Number.isFinite(value) ? new GoFloat(value) : text;
}

function narrow(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** Go's `strconv.ParseInt(s, 0, 64)` (and ParseUint): sign, then `0x`, `0o`, `0b`, a leading `0` for octal. */
function goParseInt(s: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (m === null) return undefined;
  const sign = m[1] === "-" ? -1n : 1n;
  const body = m[2] ?? "0";
  let value: bigint;
  if (/^0[xXoObB]/.test(body)) value = BigInt(`0${body[1]?.toLowerCase()}${body.slice(2)}`);
  else if (body.length > 1 && body.startsWith("0")) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  const signed = sign * value;
  if (m[1] === "-" ? signed < INT64_MIN : signed > UINT64_MAX) return undefined;
  if (m[1] === "+" && signed > INT64_MAX) return undefined;
  return signed;
}

/** Go's `strconv.FormatFloat(v, 'g', -1, 32)`: the shortest float32 digits, `%e` below 1e-4 or from 1e6. */
export function formatFloat32G(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  const f = Math.fround(value);
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  let digits = "";
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const e = Math.abs(f).toExponential(p - 1);
    if (Math.fround(Number(e)) === Math.abs(f)) {
      const [mantissa = "", exponent = "0"] = e.split("e");
      digits = mantissa.replace(".", "");
      exp = Number(exponent);
      break;
    }
  }
  const sign = f < 0 ? "-" : "";
  // With the shortest precision Go picks %e when the exponent is below -4 or at least 6 (strconv/ftoa.go).
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${mant}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** The offset of the last character before `offset` that is not white space (`\s`), or -1. */
function lastNonSpaceBefore(text: string, offset: number): number {
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i] as string)) i--;
  return i;
}
