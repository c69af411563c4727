// kingpin v2.4's duration flags (values.go durationValue) parse with xhit/go-str2duration v2.1.0: Go's
// time.ParseDuration plus the units `d` and `w`, fractions (`1.5h`), a sign, and Go's error texts.

const NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};
const MAX = (1n << 63n) - 1n;

/**
 * A duration flag's value in milliseconds (fractions kept: `500us` is 0.5), negative ones included as upstream
 * accepts them.
 *
 * @throws {Error} with str2duration's text, e.g. `time: missing unit in duration "5"`
 */
export function parseKingpinDuration(text: string): number {
  return Number(parseKingpinDurationNs(text)) / 1e6;
}

/** The same in nanoseconds, exactly (Go's time.Duration). */
export function parseKingpinDurationNs(text: string): bigint {
  const invalid = () => new Error(`time: invalid duration "${text}"`);
  let s = text;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let total = 0n;
  while (s !== "") {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s);
    const whole = m?.[1] ?? "";
    const frac = m?.[2];
    if (!/^[.\d]/.test(s) || (whole === "" && (frac === undefined || frac === ""))) throw invalid();
    s = s.slice(m?.[0].length ?? 0);
    const unitLength = /^[^.\d]*/.exec(s)?.[0].length ?? 0;
    if (unitLength === 0) throw new Error(`time: missing unit in duration "${text}"`);
    const unitName = s.slice(0, unitLength);
    s = s.slice(unitLength);
    // Own keys only: a unit spelled `constructor` is an unknown unit, not Object.prototype's.
    const unit = Object.hasOwn(NS, unitName) ? NS[unitName] : undefined;
    if (unit === undefined) throw new Error(`time: unknown unit "${unitName}" in duration "${text}"`);
    const v = BigInt(whole === "" ? "0" : whole);
    if (v > MAX / unit) throw invalid();
    let ns = v * unit;
    if (frac !== undefined && /[1-9]/.test(frac)) {
      // float64 as str2duration computes it (nanosecond accurate for fractions of hours)
      const digits = frac.slice(0, 18);
      ns += BigInt(Math.trunc(Number(digits) * (Number(unit) / 10 ** digits.length)));
    }
    total += ns;
    if (total > MAX) throw invalid();
  }
  return negative ? -total : total;
}
