// Go 1.19's strconv.ParseUint and ParseInt with base 0 and 64 bits (strconv/atoi.go), which Go's flag package uses
// for int flags and text/template for number constants: a sign, then `0x`, `0o`, `0b` or a leading `0` (octal),
// underscores between digits, and a range error told apart from a syntax error.

/** strconv's two errors, worded as the flag package reports them (`invalid value "x" for flag -port: parse error`). */
export type GoNumError = "parse error" | "value out of range";

const UINT64_MAX = 2n ** 64n - 1n;
const INT64_CUTOFF = 2n ** 63n;

/** strconv's underscoreOK: underscores only between digits, or between a base prefix and a digit. */
export function underscoreOK(text: string): boolean {
  let s = text;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let saw = "^";
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1] as string)) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.ParseUint(s, 0, 64): digit by digit, so an overflow met before a bad digit is a range error, as Go's. */
export function goParseUint(s: string): bigint | GoNumError {
  if (s === "") return "parse error";
  let base = 10n;
  let digits = s;
  if (s[0] === "0") {
    const p = s.length >= 3 ? s[1]?.toLowerCase() : undefined;
    base = p === "x" ? 16n : p === "b" ? 2n : 8n;
    digits = p === "x" || p === "o" || p === "b" ? s.slice(2) : s.slice(1);
  }
  const cutoff = UINT64_MAX / base + 1n;
  let underscores = false;
  let n = 0n;
  for (const c of digits) {
    if (c === "_") {
      underscores = true;
      continue;
    }
    const code = c.charCodeAt(0);
    const lower = code | 0x20;
    let d: bigint;
    if (code >= 0x30 && code <= 0x39) d = BigInt(code - 0x30);
    else if (code < 0x80 && lower >= 0x61 && lower <= 0x7a) d = BigInt(lower - 0x61 + 10);
    else return "parse error";
    if (d >= base) return "parse error";
    if (n >= cutoff) return "value out of range";
    n = n * base + d;
    if (n > UINT64_MAX) return "value out of range";
  }
  if (underscores && !underscoreOK(s)) return "parse error";
  return n;
}

/** strconv.ParseInt(s, 0, 64). */
export function goParseInt(s: string): bigint | GoNumError {
  if (s === "") return "parse error";
  const negative = s[0] === "-";
  const u = goParseUint(s[0] === "+" || s[0] === "-" ? s.slice(1) : s);
  if (u === "parse error") return u;
  if (u === "value out of range") return u;
  if (!negative && u >= INT64_CUTOFF) return "value out of range";
  if (negative && u > INT64_CUTOFF) return "value out of range";
  return negative ? -u : u;
}
