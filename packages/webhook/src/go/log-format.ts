/**
 * Go's renderings of values in upstream's log lines, so logs read the same after the swap (webhook.go):
 * `%q` of a string slice and go-humanize's `IBytes` (`time.Duration.String()` is @local/go-compat/duration's).
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

const IEC = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** go-humanize's `IBytes`: `2 B`, `274 B`, `1.5 KiB`, `12 MiB`. */
export function iBytes(size: number): string {
  if (size < 10) return `${size} B`;
  const e = Math.min(Math.floor(Math.log(size) / Math.log(1024)), IEC.length - 1);
  const value = Math.floor((size / 1024 ** e) * 10 + 0.5) / 10;
  return value < 10 ? `${value.toFixed(1)} ${IEC[e]}` : `${value.toFixed(0)} ${IEC[e]}`;
}
