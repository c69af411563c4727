// Go's fmt.Sprintf (Go 1.19 fmt/print.go doPrintf): flags, widths and precisions (`*` included), argument indexes
// (`%[2]d`), and Go's error forms (`%!d(MISSING)`, `%!(EXTRA int=1)`, `%!v(BADINDEX)`, `%!(NOVERB)`).
import { Printer } from "./go-format.js";
import { decodeRune, encodeRune } from "./go-text.js";
import { type GoValue, typeName } from "./values.js";

/** fmt's parsenum: a decimal number, refused beyond a million. */
function parseNum(s: string, start: number): { num: number; isNum: boolean; next: number } {
  let num = 0;
  let isNum = false;
  let i = start;
  for (; i < s.length && s[i] !== undefined && (s[i] as string) >= "0" && (s[i] as string) <= "9"; i++) {
    if (num >= 1e6) return { num: 0, isNum: false, next: s.length };
    num = num * 10 + Number(s[i]);
    isNum = true;
  }
  return { num, isNum, next: i };
}

/** fmt's intFromArg, for `*` widths and precisions. */
function intFromArg(a: readonly GoValue[], argNum: number): { num: number; isInt: boolean; argNum: number } {
  if (argNum >= a.length) return { num: 0, isInt: false, argNum };
  const arg = a[argNum] as GoValue;
  let num = 0;
  let isInt = false;
  if (arg.kind === "int" || arg.kind === "uint8") {
    const n = BigInt(arg.v);
    if (n > -(2n ** 63n) && n < 2n ** 63n) {
      num = Number(n);
      isInt = true;
    }
  }
  if (!(num > -1e6 && num < 1e6)) return { num: 0, isInt: false, argNum: argNum + 1 };
  return { num, isInt, argNum: argNum + 1 };
}

/** fmt.Sprintf over byte strings. */
export function sprintf(format: string, a: readonly GoValue[]): string {
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let afterIndex = false;
  const argNumber = (i: number): number => {
    // An explicit argument index [n].
    if (i >= end || format[i] !== "[") return i;
    p.reordered = true;
    const close = format.indexOf("]", i + 1);
    if (end - i < 3 || close < 0) {
      p.goodArgNum = false;
      return i + 1;
    }
    const { num, isNum, next } = parseNum(format, i + 1);
    if (!isNum || next !== close) {
      p.goodArgNum = false;
      return close + 1;
    }
    afterIndex = true;
    if (num - 1 >= 0 && num - 1 < a.length) argNum = num - 1;
    else p.goodArgNum = false;
    return close + 1;
  };
  for (let i = 0; i < end; ) {
    p.goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== "%") i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++;
    p.clearFlags();
    let simple = false;
    flags: for (; i < end; i++) {
      const c = format[i] as string;
      switch (c) {
        case "#":
          p.sharp = true;
          break;
        case "0":
          p.zero = !p.minus;
          break;
        case "+":
          p.plus = true;
          break;
        case "-":
          p.minus = true;
          p.zero = false;
          break;
        case " ":
          p.space = true;
          break;
        default:
          if (c >= "a" && c <= "z" && argNum < a.length) {
            if (c === "v") {
              p.sharpV = p.sharp;
              p.sharp = false;
              p.plusV = p.plus;
              p.plus = false;
            }
            p.printArg(a[argNum] as GoValue, c);
            argNum++;
            i++;
            simple = true;
          }
          break flags;
      }
    }
    if (simple) continue;
    afterIndex = false;
    i = argNumber(i);
    if (i < end && format[i] === "*") {
      i++;
      const w = intFromArg(a, argNum);
      p.wid = w.num;
      p.widPresent = w.isInt;
      argNum = w.argNum;
      if (!p.widPresent) p.buf += "%!(BADWIDTH)";
      if (p.wid < 0) {
        p.wid = -p.wid;
        p.minus = true;
        p.zero = false;
      }
      afterIndex = false;
    } else {
      const w = parseNum(format, i);
      p.wid = w.num;
      p.widPresent = w.isNum;
      i = w.next;
      if (afterIndex && p.widPresent) p.goodArgNum = false;
    }
    if (i + 1 < end && format[i] === ".") {
      i++;
      if (afterIndex) p.goodArgNum = false;
      afterIndex = false;
      i = argNumber(i);
      if (i < end && format[i] === "*") {
        i++;
        const w = intFromArg(a, argNum);
        p.prec = w.num;
        p.precPresent = w.isInt;
        argNum = w.argNum;
        if (p.prec < 0) {
          p.prec = 0;
          p.precPresent = false;
        }
        if (!p.precPresent) p.buf += "%!(BADPREC)";
        afterIndex = false;
      } else {
        const w = parseNum(format, i);
        p.prec = w.num;
        p.precPresent = true;
        i = w.next;
        if (!w.isNum) p.prec = 0;
      }
    }
    if (!afterIndex) i = argNumber(i);
    if (i >= end) {
      p.buf += "%!(NOVERB)";
      break;
    }
    const { code, width } = decodeRune(format, i);
    const verb = format.charCodeAt(i) < 0x80 ? (format[i] as string) : encodeRune(code);
    i += width;
    if (verb === "%") p.buf += "%";
    else if (!p.goodArgNum) p.buf += `%!${verb}(BADINDEX)`;
    else if (argNum >= a.length) p.buf += `%!${verb}(MISSING)`;
    else {
      if (verb === "v") {
        p.sharpV = p.sharp;
        p.sharp = false;
        p.plusV = p.plus;
        p.plus = false;
      }
      p.printArg(a[argNum] as GoValue, verb);
      argNum++;
    }
  }
  if (!p.reordered && argNum < a.length) {
    p.clearFlags();
    p.buf += "%!(EXTRA ";
    a.slice(argNum).forEach((arg, k) => {
      if (k > 0) p.buf += ", ";
      if (arg.kind === "nil") p.buf += "<nil>";
      else {
        p.buf += `${typeName(arg)}=`;
        p.printArg(arg, "v");
      }
    });
    p.buf += ")";
  }
  return p.buf;
}
