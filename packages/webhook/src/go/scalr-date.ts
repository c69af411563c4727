// Go's time.Parse (Go 1.19, time/format.go) for the one layout upstream reads Scalr's Date header with,
// "Mon 02 Jan 2006 15:04:05 MST" (internal/hook/hook.go CheckScalrSignature): the same values accepted, the same
// instant, and Go's error texts, which upstream logs (`error evaluating hook: parsing time …`).
import { goQuote } from "@local/go-compat/quote";

const LAYOUT = "Mon 02 Jan 2006 15:04:05 MST";
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A date Go refuses, worded as Go's `*time.ParseError`. */
export class GoTimeParseError extends Error {}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** getnum: one or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/** lookup: a name from the table, matched without regard to ASCII case. */
function lookup(table: readonly string[], s: string): [number, string] | undefined {
  const i = table.findIndex((name) => s.slice(0, name.length).toLowerCase() === name.toLowerCase());
  return i < 0 ? undefined : [i, s.slice(table[i]?.length)];
}

/** skip: a layout literal; a space in it takes any run of spaces. */
function skip(value: string, literal: string): string | undefined {
  if (literal === " ") return value.length > 0 && value[0] !== " " ? undefined : value.replace(/^ +/, "");
  return value.startsWith(literal) ? value.slice(literal.length) : undefined;
}

/** parseTimeZone's length for an abbreviation (`UTC` is taken before it), or 0. */
function zoneLength(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith("ChST") || value.startsWith("MeST")) return 4;
  if (value.startsWith("GMT")) return 3 + signedOffsetLength(value.slice(3));
  if (value[0] === "+" || value[0] === "-") return signedOffsetLength(value);
  let upper = 0;
  while (upper < 6 && upper < value.length && /[A-Z]/.test(value[upper] as string)) upper++;
  if (upper === 3) return 3;
  if (upper === 4 && (value[3] === "T" || value.startsWith("WITA"))) return 4;
  if (upper === 5 && value[4] === "T") return 5;
  return 0;
}

/** parseSignedOffset: `+3`, `-10` (hours, at most 23), or 0. */
function signedOffsetLength(value: string): number {
  const m = /^[+-](\d+)/.exec(value);
  return m === null || Number(m[1]) > 23 ? 0 : m[0].length;
}

/**
 * The instant a Scalr `Date` header names, as Go's `time.Parse(LAYOUT, value)` reads it: the wall time as UTC, for
 * any zone abbreviation (Go labels the time with a fabricated zone, `GMT-3` included, without moving the instant;
 * only the abbreviations of the server's own zone would move it, and a service's zone is UTC).
 *
 * @throws {GoTimeParseError} with Go's text when Go refuses the value
 */
export function parseScalrDate(value: string): Date {
  const bad = (rest: string, elem: string) =>
    new GoTimeParseError(
      `parsing time ${goQuote(value)} as ${goQuote(LAYOUT)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`,
    );
  const outOfRange = (what: string) =>
    new GoTimeParseError(`parsing time ${goQuote(value)}: ${what} out of range`);
  let rest = value;
  const literal = (text: string) => {
    const next = skip(rest, text);
    if (next === undefined) throw bad(rest, text);
    rest = next;
  };
  const number = (elem: string, fixed: boolean, range?: [string, number]) => {
    const got = getnum(rest, fixed);
    if (got === undefined) throw bad(rest, elem);
    if (range !== undefined && got[0] >= range[1]) throw outOfRange(range[0]);
    rest = got[1];
    return got[0];
  };
  const weekday = lookup(DAYS, rest);
  if (weekday === undefined) throw bad(rest, "Mon");
  rest = weekday[1];
  literal(" ");
  const day = number("02", true);
  literal(" ");
  const month = lookup(MONTHS, rest);
  if (month === undefined) throw bad(rest, "Jan");
  rest = month[1];
  literal(" ");
  if (rest.length < 4 || !/^\d{4}/.test(rest)) throw bad(rest, "2006");
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  literal(" ");
  const hour = number("15", false, ["hour", 24]);
  literal(":");
  const minute = number("04", true, ["minute", 60]);
  literal(":");
  const second = number("05", true, ["second", 60]);
  // Go takes fractional seconds after the seconds even where the layout has none.
  let millis = 0;
  const fraction = /^[.,](\d+)/.exec(rest);
  if (fraction !== null) {
    millis = Number(`0.${fraction[1]}`) * 1000;
    rest = rest.slice(fraction[0].length);
  }
  literal(" ");
  if (rest.startsWith("UTC")) rest = rest.slice(3);
  else {
    const n = zoneLength(rest);
    if (n === 0) throw bad(rest, "MST");
    rest = rest.slice(n);
  }
  if (rest !== "") throw new GoTimeParseError(`parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`);
  const monthIndex = month[0];
  const daysInMonth = new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth)
    throw new GoTimeParseError(`parsing time ${goQuote(value)}: day out of range`);
  const utc = Date.UTC(year, monthIndex, day, hour, minute, second) + millis;
  // Date.UTC maps years 0-99 to 1900-1999; Go does not.
  const date = new Date(utc);
  if (year < 100) date.setUTCFullYear(year);
  return date;
}
