// strconv.FormatFloat against the rows of Go 1.19's strconv/ftoa_test.go ftoatests whose value is a literal
// (test/fixtures/go-template/go1.19-strconv-tables.json), plus fmt's half-to-even rounding.
import assert from "node:assert/strict";
import { test } from "node:test";
import { goTemplateFixture } from "../../../test/support/go-template-fixtures.js";
import { goFormatFloat } from "./go-float.js";
import { parseFloat64 } from "./number.js";

type Verb = Parameters<typeof goFormatFloat>[1];

test("FormatFloat gives Go's text for each ftoatests row", () => {
  const { ftoa } = goTemplateFixture<{ ftoa: [string, string, number, string][] }>(
    "go1.19-strconv-tables.json",
  );
  assert.ok(ftoa.length >= 90);
  for (const [literal, verb, prec, want] of ftoa) {
    if (!"eEfgGbxX".includes(verb)) continue; // Go's row for an unknown format ('y'); fmt never asks for one

    const value = parseFloat64(literal);
    assert.ok(value !== undefined, literal);
    assert.equal(goFormatFloat(value, verb as Verb, prec), want, `${literal} ${verb} ${prec}`);
  }
});

test("fixed precisions round the exact value half to even, as Go's", () => {
  assert.equal(goFormatFloat(0.5, "f", 0), "0");
  assert.equal(goFormatFloat(1.5, "f", 0), "2");
  assert.equal(goFormatFloat(2.5, "f", 0), "2");
  assert.equal(goFormatFloat(0.125, "f", 2), "0.12");
  assert.equal(goFormatFloat(1.005, "f", 2), "1.00"); // 1.005 is 1.00499999999999989…
  assert.equal(goFormatFloat(Number.NaN, "g", -1), "NaN");
  assert.equal(goFormatFloat(Number.NEGATIVE_INFINITY, "e", 3), "-Inf");
});
