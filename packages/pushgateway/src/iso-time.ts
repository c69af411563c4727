/** Years 0-9999, in ms since the epoch: outside them the ISO form has a sign and six year digits. */
const FIRST_FOUR_DIGIT_YEAR_MS = -62167219200000;
const LAST_FOUR_DIGIT_YEAR_MS = 253402300799999;

/**
 * `new Date(ms).toISOString()`, formatted from the UTC fields. V8's `toISOString` looks up the local time zone's
 * display name on every call, whether it prints it or not, and the first lookup loads ICU's time zone names: about
 * 1 MiB of node's binary and data paged in for the life of a gateway that only logs and stamps push times
 * (bench/pushgateway/README.md). Outside years 0-9999 (and for NaN, which throws as `toISOString` does) it defers
 * to `toISOString`.
 */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  if (!(ms >= FIRST_FOUR_DIGIT_YEAR_MS && ms <= LAST_FOUR_DIGIT_YEAR_MS)) return d.toISOString();
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
