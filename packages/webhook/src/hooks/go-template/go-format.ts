// Go's fmt (Go 1.19 fmt/print.go and fmt/format.go) for the values a template can hold (values.ts): Sprint,
// Sprintln and Sprintf with every verb, flag, width, precision and argument index, and Go's error forms
// (`%!d(string=x)`, `%!d(MISSING)`, `%!(EXTRA int=1)`, `%!v(BADINDEX)`, `%!(NOVERB)`). Text is byte strings.
import { goFormatFloat } from "./go-float.js";
import { decodeRune, encodeRune, isPrint, runeCount } from "./go-text.js";
import { canBackquote, quote, quoteRune } from "./strconv.js";
import { type GoValue, typeName } from "./values.js";

const LDIGITS = "0123456789abcdefx";
const UDIGITS = "0123456789ABCDEFX";
const MAX_RUNE = 0x10ffff;

/** fmt's pp and fmt state: flags, width, precision and the buffer being written. */
export class Printer {
  buf = "";
  plus = false;
  minus = false;
  sharp = false;
  space = false;
  zero = false;
  plusV = false;
  sharpV = false;
  wid = 0;
  widPresent = false;
  prec = 0;
  precPresent = false;
  goodArgNum = true;
  reordered = false;

  clearFlags(): void {
    this.plus = this.minus = this.sharp = this.space = this.zero = false;
    this.plusV = this.sharpV = this.widPresent = this.precPresent = false;
    this.wid = this.prec = 0;
  }

  writePadding(n: number): void {
    if (n > 0) this.buf += (this.zero ? "0" : " ").repeat(n);
  }

  /** fmt.pad / padString: width counts runes; pads with zeros when the 0 flag is set. */
  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.wid - runeCount(s);
    if (!this.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }

  /** Pads with spaces whatever the 0 flag says. */
  padNoZero(s: string): void {
    const zero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = zero;
  }

  printArg(arg: GoValue, verb: string): void {
    if (arg.kind === "nil") {
      if (verb === "T" || verb === "v") this.pad("<nil>");
      else this.badVerb(arg, verb);
      return;
    }
    if (verb === "T") {
      this.fmtS(typeName(arg));
      return;
    }
    if (verb === "p") {
      this.badVerb(arg, verb); // no pointers here
      return;
    }
    switch (arg.kind) {
      case "bool":
        if (verb === "t" || verb === "v") this.pad(arg.v ? "true" : "false");
        else this.badVerb(arg, verb);
        return;
      case "float64":
        this.fmtFloat(arg, arg.v, verb);
        return;
      case "complex128":
        this.fmtComplex(arg, verb);
        return;
      case "int":
        this.fmtInteger(arg, arg.v, true, verb);
        return;
      case "uint8":
        this.fmtInteger(arg, BigInt(arg.v), false, verb);
        return;
      case "string":
        this.fmtString(arg, verb);
        return;
    }
  }

  badVerb(arg: GoValue, verb: string): void {
    this.buf += `%!${verb}(`;
    if (arg.kind === "nil") this.buf += "<nil>";
    else {
      this.buf += `${typeName(arg)}=`;
      this.printArg(arg, "v");
    }
    this.buf += ")";
  }

  fmtInteger(arg: GoValue, v: bigint, signed: boolean, verb: string): void {
    switch (verb) {
      case "v":
        if (this.sharpV && !signed) {
          const sharp = this.sharp;
          this.sharp = true;
          this.integer(v, 16, verb, LDIGITS);
          this.sharp = sharp;
        } else this.integer(v, 10, verb, LDIGITS);
        return;
      case "d":
        this.integer(v, 10, verb, LDIGITS);
        return;
      case "b":
        this.integer(v, 2, verb, LDIGITS);
        return;
      case "o":
      case "O":
        this.integer(v, 8, verb, LDIGITS);
        return;
      case "x":
        this.integer(v, 16, verb, LDIGITS);
        return;
      case "X":
        this.integer(v, 16, verb, UDIGITS);
        return;
      case "c":
        this.pad(encodeRune(runeOf(v)));
        return;
      case "q":
        this.pad(quoteRune(runeOf(v), this.plus));
        return;
      case "U":
        this.fmtUnicode(v < 0n ? v + 2n ** 64n : v);
        return;
      default:
        this.badVerb(arg, verb);
        return;
    }
  }

  /** format.go fmtInteger. */
  integer(value: bigint, base: number, verb: string, digits: string): void {
    const negative = value < 0n;
    const u = negative ? -value : value;
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      if (prec === 0 && u === 0n) {
        const zero = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = zero;
        return;
      }
    } else if (this.zero && this.widPresent) {
      prec = this.wid;
      if (negative || this.plus || this.space) prec--; // leave room for sign
    }
    let s = u.toString(base);
    if (digits === UDIGITS) s = s.toUpperCase();
    if (s.length < prec) s = s.padStart(prec, "0");
    if (this.sharp) {
      if (base === 2) s = `0b${s}`;
      else if (base === 8 && s[0] !== "0") s = `0${s}`;
      else if (base === 16) s = `0${digits[16]}${s}`;
    }
    if (verb === "O") s = `0o${s}`;
    if (negative) s = `-${s}`;
    else if (this.plus) s = `+${s}`;
    else if (this.space) s = ` ${s}`;
    this.padNoZero(s);
  }

  fmtUnicode(u: bigint): void {
    const prec = this.precPresent && this.prec > 4 ? this.prec : 4;
    let s = `U+${u.toString(16).toUpperCase().padStart(prec, "0")}`;
    if (this.sharp && u <= BigInt(MAX_RUNE) && isPrint(Number(u))) s += ` '${encodeRune(Number(u))}'`;
    this.padNoZero(s);
  }

  fmtFloat(arg: GoValue, v: number, verb: string): void {
    switch (verb) {
      case "v":
        this.float(v, "g", -1);
        return;
      case "b":
      case "g":
      case "G":
      case "x":
      case "X":
        this.float(v, verb, -1);
        return;
      case "f":
      case "e":
      case "E":
        this.float(v, verb, 6);
        return;
      case "F":
        this.float(v, "f", 6);
        return;
      default:
        this.badVerb(arg, verb);
        return;
    }
  }

  /** format.go fmtFloat. */
  float(v: number, verb: "b" | "g" | "G" | "x" | "X" | "f" | "e" | "E", defaultPrec: number): void {
    const prec = this.precPresent ? this.prec : defaultPrec;
    let num = goFormatFloat(v, verb, prec);
    num = num[0] === "-" || num[0] === "+" ? num : `+${num}`;
    if (this.space && num[0] === "+" && !this.plus) num = ` ${num.slice(1)}`;
    if (num[1] === "I" || num[1] === "N") {
      if (num[1] === "N" && !this.space && !this.plus) num = num.slice(1);
      this.padNoZero(num);
      return;
    }
    if (this.sharp && verb !== "b") {
      let digits = 0;
      if (verb === "g" || verb === "G" || verb === "x") digits = prec === -1 ? 6 : prec;
      let tail = "";
      let hasDecimalPoint = false;
      let sawNonzeroDigit = false;
      for (let i = 1; i < num.length; i++) {
        const c = num[i] as string;
        if (c === ".") hasDecimalPoint = true;
        else if (c === "p" || c === "P" || ((c === "e" || c === "E") && verb !== "x" && verb !== "X")) {
          tail = num.slice(i);
          num = num.slice(0, i);
          break;
        } else {
          if (c !== "0") sawNonzeroDigit = true;
          if (sawNonzeroDigit) digits--;
        }
      }
      if (!hasDecimalPoint) {
        if (num.length === 2 && num[1] === "0") digits--;
        num += ".";
      }
      if (digits > 0) num += "0".repeat(digits);
      num += tail;
    }
    if (this.plus || num[0] !== "+") {
      if (this.zero && this.widPresent && this.wid > num.length) {
        this.buf += num[0];
        this.writePadding(this.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  fmtComplex(arg: GoValue & { kind: "complex128" }, verb: string): void {
    if (!"vbgGxXfFeE".includes(verb) || verb.length !== 1) {
      this.badVerb(arg, verb);
      return;
    }
    const plus = this.plus;
    this.buf += "(";
    this.fmtFloat(arg, arg.re, verb);
    this.plus = true;
    this.fmtFloat(arg, arg.im, verb);
    this.buf += "i)";
    this.plus = plus;
  }

  fmtString(arg: GoValue & { kind: "string" }, verb: string): void {
    switch (verb) {
      case "v":
        this.sharpV ? this.fmtQ(arg.v) : this.fmtS(arg.v);
        return;
      case "s":
        this.fmtS(arg.v);
        return;
      case "x":
        this.fmtSx(arg.v, LDIGITS);
        return;
      case "X":
        this.fmtSx(arg.v, UDIGITS);
        return;
      case "q":
        this.fmtQ(arg.v);
        return;
      default:
        this.badVerb(arg, verb);
        return;
    }
  }

  truncate(s: string): string {
    if (!this.precPresent) return s;
    let i = 0;
    for (let n = 0; n < this.prec && i < s.length; n++) i += decodeRune(s, i).width;
    return s.slice(0, i);
  }

  fmtS(s: string): void {
    this.pad(this.truncate(s));
  }

  fmtSx(s: string, digits: string): void {
    let length = s.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2;
        width += length - 1;
      } else if (this.sharp) width += 2;
    } else {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    let out = this.sharp ? `0${digits[16]}` : "";
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) out += this.sharp ? ` 0${digits[16]}` : " ";
      const c = s.charCodeAt(i);
      out += (digits[c >> 4] as string) + (digits[c & 15] as string);
    }
    this.buf += out;
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  fmtQ(text: string): void {
    const s = this.truncate(text);
    if (this.sharp && canBackquote(s)) this.pad(`\`${s}\``);
    else this.pad(quote(s, this.plus));
  }
}

/** rune(c) of fmtC/fmtQc: beyond the Unicode range (a negative int included) is U+FFFD. */
function runeOf(v: bigint): number {
  const u = v < 0n ? v + 2n ** 64n : v;
  return u > BigInt(MAX_RUNE) ? 0xfffd : Number(u);
}

/** fmt.Sprint: operands in %v, with a space between two operands when neither is a string. */
export function sprint(a: readonly GoValue[]): string {
  const p = new Printer();
  let prevString = false;
  a.forEach((arg, k) => {
    const isString = arg.kind === "string";
    if (k > 0 && !isString && !prevString) p.buf += " ";
    p.printArg(arg, "v");
    prevString = isString;
  });
  return p.buf;
}

/** fmt.Sprintln: operands in %v separated by spaces, then a newline. */
export function sprintln(a: readonly GoValue[]): string {
  const p = new Printer();
  a.forEach((arg, k) => {
    if (k > 0) p.buf += " ";
    p.printArg(arg, "v");
  });
  return `${p.buf}\n`;
}
