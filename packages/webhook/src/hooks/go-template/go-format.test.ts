// fmt.Sprint and Sprintln (Go 1.19 fmt/print.go doPrint, doPrintln) and the verbs of each value kind; expected texts
// from Go's fmt_test.go rows.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sprint, sprintln } from "./go-format.js";
import { sprintf } from "./go-printf.js";
import { bool, type GoValue, int, NIL, str } from "./values.js";

const f = (v: number): GoValue => ({ kind: "float64", v });
const u8 = (v: number): GoValue => ({ kind: "uint8", v });

test("Sprint puts a space between operands when neither is a string; Sprintln between all", () => {
  assert.equal(sprint([int(1), int(2), str("a"), str("b"), int(3), NIL, bool(true)]), "1 2ab3 <nil> true");
  assert.equal(sprintln([int(1), str("a"), f(2.5)]), "1 a 2.5\n");
  assert.equal(sprint([]), "");
});

test("the verbs of each kind, and a verb that does not fit its value", () => {
  const rows: [string, GoValue, string][] = [
    ["%v", f(1e6), "1e+06"],
    ["%v", f(100000), "100000"],
    ["%v", f(-0), "-0"],
    ["%e", f(1), "1.000000e+00"],
    ["%8.3f", f(-7), "  -7.000"],
    ["%+.3e", f(1), "+1.000e+00"],
    ["%#g", f(1), "1.00000"],
    ["%x", f(1), "0x1p+00"],
    ["%v", u8(97), "97"],
    ["%#v", u8(97), "0x61"],
    ["%c", u8(97), "a"],
    ["%q", int(0x263a), "'\xe2\x98\xba'"],
    ["%+q", int(0x263a), "'\\u263a'"],
    ["%U", int(0x263a), "U+263A"],
    ["%#U", int(0x263a), "U+263A '\xe2\x98\xba'"],
    ["%#x", int(-1), "-0x1"],
    ["%08.3d", int(-7), "    -007"],
    ["%t", bool(false), "false"],
    ["%d", str("x"), "%!d(string=x)"],
    ["%s", int(1), "%!s(int=1)"],
    ["%t", int(1), "%!t(int=1)"],
    ["%d", NIL, "%!d(<nil>)"],
    ["%T", u8(1), "uint8"],
    ["%x", str("\xff\xf0"), "fff0"],
    ["% X", str("ab"), "61 62"],
    ["%-6s|", str("\xc3\xa9"), "\xc3\xa9     |"],
    ["%.1q", str("\xc3\xa9x"), '"\xc3\xa9"'],
    ["%#q", str("a`b"), '"a`b"'],
    ["%#q", str("ab"), "`ab`"],
  ];
  for (const [format, value, want] of rows)
    assert.equal(
      sprintf(format, [value]),
      want,
      `${format} ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`,
    );
});
