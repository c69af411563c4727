/**
 * Formats a float as Go's `strconv.FormatFloat(v, 'g', -1, 64)`, which the text exposition format uses: shortest
 * round-trip digits, scientific when the decimal exponent is below -4 or at least 6 (JavaScript switches at 21),
 * exponent with a sign and at least two digits; `+Inf`, `-Inf`, `NaN` spelled as Prometheus does.
 */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  if (v === 0) return "0";
  // Between 1e-4 and 1e6 both languages write shortest round-trip digits without an exponent: the common case, and
  // the toExponential path below costs several times more.
  const magnitude = Math.abs(v);
  if (magnitude >= 1e-4 && magnitude < 1e6) return String(v);
  const [mantissa = "", expText = "0"] = v.toExponential().split("e");
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exp < -4 || exp >= 21 || exp >= 6) {
    const frac = digits.slice(1);
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac ? `.${frac}` : ""}e${exp < 0 ? "-" : "+"}${e < 10 ? `0${e}` : e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}${frac ? `.${frac}` : ""}`;
}
