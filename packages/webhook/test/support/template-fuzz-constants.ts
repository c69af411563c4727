// Seeded random constants of Go 1.19's text/template for test/support/template-fuzz-cases.ts: integers in every base
// with `_`, floats, hex floats, imaginary and complex numbers, char constants, interpreted and raw strings with escapes,
// printf formats; with `bad`, also the forms Go refuses (`1__0`, `1e400`, `'ab'`, `"\\q"`).
import type { Rng } from "./parity-fuzz-cases.js";

const SPECIAL_INTS = [
  "9223372036854775807",
  "-9223372036854775808",
  "9223372036854775808",
  "18446744073709551615",
  "18446744073709551616",
  "0",
  "-0",
  "00",
  "1",
];

/** Digits of `v` in `base`, with `_` between some of them (and now and then where Go refuses one). */
function digits(rng: Rng, v: number, base: number, bad: boolean): string {
  const d = v.toString(base);
  if (!rng.chance(0.25)) return d;
  let out = "";
  for (const [i, c] of [...d].entries()) out += (i > 0 && rng.chance(0.4) ? "_" : "") + c;
  if (bad && rng.chance(0.3)) out = rng.pick([`${out}_`, out.replace("_", "__"), `_${out}`]);
  return out;
}

export function intConst(rng: Rng, bad: boolean): string {
  if (rng.chance(0.05)) return rng.pick(bad ? SPECIAL_INTS : SPECIAL_INTS.slice(0, 2));
  const v = rng.pick([0, 1, 7, 8, 10, 42, 255, 65, 1000, rng.int(100000), rng.int(2 ** 31)]);
  const sign = rng.chance(0.15) ? rng.pick(["-", "+"]) : "";
  const base = rng.int(8);
  const body =
    base === 0
      ? `0x${digits(rng, v, 16, bad)}`
      : base === 1
        ? `0${rng.pick(["o", "O"])}${digits(rng, v, 8, bad)}`
        : base === 2
          ? `0${rng.pick(["b", "B"])}${digits(rng, v, 2, bad)}`
          : base === 3
            ? `0${digits(rng, v, 8, bad)}`
            : base === 4
              ? `0X${digits(rng, v, 16, bad).toUpperCase()}`
              : digits(rng, v, 10, bad);
  return sign + body;
}

export function floatConst(rng: Rng, bad: boolean): string {
  const sign = rng.chance(0.15) ? rng.pick(["-", "+"]) : "";
  const kind = rng.int(7);
  const int = String(rng.pick([0, 1, 3, 12, 255, rng.int(100000)]));
  const frac = String(rng.int(1000));
  const exp = () =>
    `${rng.pick(["e", "E"])}${rng.pick(["", "-", "+"])}${rng.pick(bad ? [0, 1, 3, 10, 21, 300, 309, 400] : [0, 1, 3, 10, 21, 300])}`;
  const body =
    kind === 0
      ? `${int}.${frac}`
      : kind === 1
        ? `.${frac}`
        : kind === 2
          ? `${int}.`
          : kind === 3
            ? `${int}${exp()}`
            : kind === 4
              ? `${int}.${frac}${exp()}`
              : kind === 5
                ? `0x${rng.pick(["1", "1.8", ".8", "F", "1_0"])}${rng.pick(["p", "P"])}${rng.pick(["", "-", "+"])}${rng.int(70)}`
                : rng.pick([
                    "1_000.5",
                    "0.000001",
                    "1e-7",
                    "123456789.0",
                    "1e21",
                    "1e20",
                    ...(bad ? ["0x1p", "1e", "1.5e+"] : []),
                  ]);
  return sign + body;
}

export function complexConst(rng: Rng, bad: boolean): string {
  const part = () => (rng.chance(0.5) ? String(rng.int(20)) : floatConst(rng, bad).replace(/^[-+]/, ""));
  if (rng.chance(0.5)) return `${rng.chance(0.2) ? "-" : ""}${part()}i`;
  return `${rng.chance(0.2) ? "-" : ""}${part()}${rng.pick(["+", "-"])}${part()}i`;
}

export const CHARS = [
  "'a'",
  "'\\n'",
  "'\\t'",
  "'\\\\'",
  "'\\''",
  "'\"'",
  "'\\x41'",
  "'\\101'",
  "'\\u00e9'",
  "'\\U0001F600'",
  "'é'",
  "'😀'",
  "' '",
  "'%'",
  "'\\a'",
  "'\\x7f'",
  "'\\xff'",
];
export const BAD_CHARS = ["'ab'", "''", "'\\q'", "'\\xZZ'", "'\\400'", "'a", "'\\ud800'", "'\\U00110000'"];
const ESCAPES = ["\\t", "\\\\", '\\"', "\\x41", "\\u00e9", "\\U0001F600", "\\101", "\\u2603"];
/**
 * Escapes for what a hooks file cannot hold as is: line ends (mostly followed by the block's indentation), control
 * characters and bytes that are not UTF-8 (which libyaml refuses in its own words).
 */
const RARE_ESCAPES = [
  "\\n    ",
  "\\n    ",
  "\\n",
  "\\xff",
  "\\xc3",
  "\\u0085    ",
  "\\r    ",
  "\\a",
  "\\b",
  "\\f",
  "\\v",
  "\\r",
];

export function stringConst(rng: Rng, bad: boolean): string {
  if (rng.chance(0.15)) {
    const parts = rng.times(3, () => rng.pick(['"', "\\n", "é", "a b", "%d", "{", "'"]));
    return `\`${parts.join("")}\``;
  }
  let s = "";
  for (const _ of rng.times(4, () => 0)) {
    const r = rng.next();
    s +=
      r < 0.55
        ? rng.pick(["a", "abc", "é", "😀", " ", "héllo", "<b>", "&", "=", "?", "/", "~", "%", "%d", "x+y"])
        : r < 0.9
          ? rng.pick(ESCAPES)
          : r < 0.96 || !bad
            ? rng.pick(RARE_ESCAPES)
            : rng.pick(["\\q", "\\u12", "\\x4"]);
  }
  return `"${s}"`;
}

const VERBS = "vdTsqxXobcUeEfFgGpt%";
/** A printf format: literal text and directives with random flags, widths, precisions, argument indexes and verbs. */
export function format(rng: Rng): string {
  let f = "";
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    if (rng.chance(0.4)) f += rng.pick(["|", "a", " ", "é", "x="]);
    f += "%";
    for (const flag of "+-# 0") if (rng.chance(0.12)) f += flag;
    if (rng.chance(0.1)) f += `[${rng.pick(["1", "2", "3", "0", "9", "x", ""])}]`;
    if (rng.chance(0.3)) f += rng.pick(["1", "5", "08", "12", "*", "[2]*", "100"]);
    if (rng.chance(0.3)) f += `.${rng.pick(["", "0", "2", "3", "*", "10", "[1]*"])}`;
    if (rng.chance(0.1)) f += `[${rng.pick(["1", "2", "3", "5", "0"])}]`;
    f += rng.chance(0.05) ? rng.pick(["z", "!", "", "é", "w"]) : VERBS[rng.int(VERBS.length)];
  }
  return `"${f}"`;
}
