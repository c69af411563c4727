// Go's time.Duration.String() (time/time.go): the way both servers print durations, webhook in its request log
// ("completed ... in 14.87341ms") and pushgateway in its flag values on the status page ("5m0s").

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
