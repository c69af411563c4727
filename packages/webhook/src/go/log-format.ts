/**
 * Go's renderings of values in upstream's log lines, so logs read the same after the swap (research §9):
 * `%q` of a string slice, `time.Duration.String()` and go-humanize's `IBytes`.
 */
import { goQuote } from "@local/go-compat/quote";

/** Go's `%q` of a `[]string`: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(" ")}]`;
}

/** Go's `%s` of a `[]string`: `[a b]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

/** Go's `time.Duration.String()` for a duration in nanoseconds: `812ns`, `40.661µs`, `14.87341ms`, `1.5s`, `2m3s`. */
export function goDuration(nanos: number): string {
  const ns = Math.max(0, Math.round(nanos));
  if (ns === 0) return "0s";
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return `${fraction(ns, 3)}µs`;
  if (ns < 1e9) return `${fraction(ns, 6)}ms`;
  const h = Math.floor(ns / 3.6e12);
  const m = Math.floor((ns % 3.6e12) / 6e10);
  const s = fraction(ns % 6e10, 9);
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** `value / 10^digits` written with at most `digits` decimals and no trailing zeros. */
function fraction(value: number, digits: number): string {
  const scale = 10 ** digits;
  const whole = Math.floor(value / scale);
  const rest = String(value % scale)
    .padStart(digits, "0")
    .replace(/0+$/, "");
  return rest === "" ? String(whole) : `${whole}.${rest}`;
}

const IEC = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** go-humanize's `IBytes`: `2 B`, `274 B`, `1.5 KiB`, `12 MiB`. */
export function iBytes(size: number): string {
  if (size < 10) return `${size} B`;
  const e = Math.min(Math.floor(Math.log(size) / Math.log(1024)), IEC.length - 1);
  const value = Math.floor((size / 1024 ** e) * 10 + 0.5) / 10;
  return value < 10 ? `${value.toFixed(1)} ${IEC[e]}` : `${value.toFixed(0)} ${IEC[e]}`;
}
