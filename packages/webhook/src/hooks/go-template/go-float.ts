// Go's strconv.FormatFloat(f, fmt, prec, 64) (Go 1.19 strconv/ftoa.go) for the formats fmt uses: 'e', 'E', 'f',
// 'g', 'G', 'b', 'x', 'X'. Shortest digits (prec < 0) are JS's, which are also the shortest that round-trip, closest
// to the value; fixed precisions round the exact decimal value of the double half to even, as Go does.

/** A decimal: digits "d1d2…" standing for 0.d1d2… × 10^dp; no leading or trailing zeros; "" for zero. */
interface Decimal {
  digits: string;
  dp: number;
}

function bitsOf(f: number): { neg: boolean; expBits: number; fraction: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, f);
  const bits = view.getBigUint64(0);
  return {
    neg: bits >> 63n === 1n,
    expBits: Number((bits >> 52n) & 0x7ffn),
    fraction: bits & ((1n << 52n) - 1n),
  };
}

/** The mantissa (with the implicit bit) and binary exponent, as ftoa.go's genericFtoa has them before formatting. */
function mantExp(f: number): { mant: bigint; exp: number } {
  const { expBits, fraction } = bitsOf(f);
  if (expBits === 0) return { mant: fraction, exp: -1022 }; // denormal
  return { mant: fraction | (1n << 52n), exp: expBits - 1023 };
}

function exactDecimal(f: number): Decimal {
  const { mant, exp } = mantExp(f);
  if (mant === 0n) return { digits: "", dp: 0 };
  const e = exp - 52;
  let digits: string;
  let dp: number;
  if (e >= 0) {
    digits = (mant << BigInt(e)).toString();
    dp = digits.length;
  } else {
    digits = (mant * 5n ** BigInt(-e)).toString();
    dp = digits.length + e;
  }
  return trim({ digits, dp });
}

function trim(d: Decimal): Decimal {
  const digits = d.digits.replace(/0+$/, "");
  return { digits, dp: digits === "" ? 0 : d.dp };
}

function shortestDecimal(f: number): Decimal {
  if (f === 0) return { digits: "", dp: 0 };
  const [mantissa = "", exponent = "0"] = Math.abs(f).toExponential().split("e");
  return trim({ digits: mantissa.replace(".", ""), dp: Number(exponent) + 1 });
}

/** decimal.Round(nd): half to even on the exact digits; nd outside the digits leaves them as they are. */
function round(d: Decimal, nd: number): Decimal {
  if (nd < 0 || nd >= d.digits.length) return d;
  const next = d.digits[nd] as string;
  const up =
    next === "5" && nd + 1 === d.digits.length ? nd > 0 && Number(d.digits[nd - 1]) % 2 === 1 : next >= "5";
  if (!up) return trim({ digits: d.digits.slice(0, nd), dp: d.dp });
  let i = nd - 1;
  while (i >= 0 && d.digits[i] === "9") i--;
  if (i < 0) return { digits: "1", dp: d.dp + 1 };
  return { digits: d.digits.slice(0, i) + String(Number(d.digits[i]) + 1), dp: d.dp };
}

function fmtE(neg: boolean, d: Decimal, prec: number, verb: string): string {
  let out = neg ? "-" : "";
  out += d.digits === "" ? "0" : d.digits[0];
  if (prec > 0) out += `.${d.digits.slice(1, prec + 1).padEnd(prec, "0")}`;
  let exp = d.digits === "" ? 0 : d.dp - 1;
  const sign = exp < 0 ? "-" : "+";
  exp = Math.abs(exp);
  return `${out}${verb}${sign}${exp < 10 ? `0${exp}` : String(exp)}`;
}

function fmtF(neg: boolean, d: Decimal, prec: number): string {
  let out = neg ? "-" : "";
  out += d.dp > 0 ? d.digits.slice(0, d.dp).padEnd(d.dp, "0") : "0";
  if (prec > 0) {
    out += ".";
    for (let i = 1; i <= prec; i++) {
      const j = d.dp + i - 1;
      out += j >= 0 && j < d.digits.length ? d.digits[j] : "0";
    }
  }
  return out;
}

function fmtB(neg: boolean, f: number): string {
  const { mant, exp } = mantExp(f);
  const e = exp - 52;
  return `${neg ? "-" : ""}${mant}p${e >= 0 ? "+" : ""}${e}`;
}

const MASK64 = (1n << 64n) - 1n;

function fmtX(neg: boolean, f: number, prec: number, verb: "x" | "X"): string {
  let { mant, exp } = mantExp(f);
  if (mant === 0n) exp = 0;
  // Shift digits so the leading 1 (if any) is at bit 1<<60.
  mant = (mant << 8n) & MASK64;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant = (mant << 1n) & MASK64;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant = (mant << (60n - shift)) & MASK64;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = verb === "X" ? "0123456789ABCDEF" : "0123456789abcdef";
  let out = `${neg ? "-" : ""}0${verb}${(mant >> 60n) & 1n}`;
  mant = (mant << 4n) & MASK64;
  if (prec < 0 && mant !== 0n) {
    out += ".";
    while (mant !== 0n) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  } else if (prec > 0) {
    out += ".";
    for (let i = 0; i < prec; i++) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  }
  const sign = exp < 0 ? "-" : "+";
  return `${out}${verb === "X" ? "P" : "p"}${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/**
 * strconv.FormatFloat(f, verb, prec, 64).
 *
 * @example goFormatFloat(1e6, "g", -1) // => "1e+06"
 */
export function goFormatFloat(
  f: number,
  verb: "e" | "E" | "f" | "g" | "G" | "b" | "x" | "X",
  prec: number,
): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Number.POSITIVE_INFINITY) return "+Inf";
  if (f === Number.NEGATIVE_INFINITY) return "-Inf";
  const neg = bitsOf(f).neg;
  if (verb === "b") return fmtB(neg, f);
  if (verb === "x" || verb === "X") return fmtX(neg, f, prec, verb);
  const shortest = prec < 0;
  let d: Decimal;
  let p = prec;
  if (shortest) {
    d = shortestDecimal(f);
    p =
      verb === "e" || verb === "E"
        ? Math.max(d.digits.length - 1, 0)
        : verb === "f"
          ? Math.max(d.digits.length - d.dp, 0)
          : d.digits.length;
  } else {
    d = exactDecimal(f);
    if (verb === "e" || verb === "E") d = round(d, p + 1);
    else if (verb === "f") d = round(d, d.dp + p);
    else {
      if (p === 0) p = 1;
      d = round(d, p);
    }
  }
  if (verb === "e" || verb === "E") return fmtE(neg, d, p, verb);
  if (verb === "f") return fmtF(neg, d, p);
  // %g: %e when the exponent is below -4 or at least the precision (6 for the shortest digits).
  let eprec = p;
  if (eprec > d.digits.length && d.digits.length >= d.dp) eprec = d.digits.length;
  if (shortest) eprec = 6;
  const exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (p > d.digits.length) p = d.digits.length;
    return fmtE(neg, d, p - 1, verb === "g" ? "e" : "E");
  }
  if (p > d.dp) p = d.digits.length;
  return fmtF(neg, d, Math.max(p - d.dp, 0));
}
