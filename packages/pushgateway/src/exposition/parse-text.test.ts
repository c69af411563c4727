import assert from "node:assert/strict";
import { test } from "node:test";
import { parseText } from "./parse-text.js";

// Expected texts were checked against Debian's prometheus-pushgateway 1.5.1 answering the same bodies.
const errors: [string, string][] = [
  ["blablabla\n", 'text format parsing error in line 1: expected float as value, got ""'],
  ["m 1", "text format parsing error in line 1: unexpected end of input stream"],
  ['m{a="b" 1\n', 'text format parsing error in line 1: unexpected end of label value "b"'],
  ["m 1e400\n", 'text format parsing error in line 1: expected float as value, got "1e400"'],
  ["m 0x1p3\n", 'text format parsing error in line 1: expected float as value, got "0x1p3"'],
  [
    '# TYPE s summary\ns{quantile="x"} 1\n',
    "text format parsing error in line 2: expected float as value for 'quantile' label, got \"x\"",
  ],
  ["m 1\r\n", 'text format parsing error in line 1: expected float as value, got "1\\r"'],
  ["# HELP m a\\q\nm 1\n", "text format parsing error in line 1: invalid escape sequence '\\q'"],
  // Go reads on past the end of the line: the newline is what it names (prometheus/common text_parse_test.go #2).
  [
    '\nmetric{label="new\nline"} 3.14\n',
    'text format parsing error in line 2: label value "new" contains unescaped new-line',
  ],
  ["# HELP m ab\\\nm 1\n", "text format parsing error in line 1: invalid escape sequence '\\\n'"],
  ['m{a="x\\\n"} 1\n', "text format parsing error in line 1: invalid escape sequence '\\\n'"],
  // An error on an earlier byte of an unterminated last line wins over the end of input, as Go's streaming parser.
  ["ok 1\n1abc", "text format parsing error in line 2: invalid metric name"],
  ["m{a=1", "text format parsing error in line 1: expected '\"' at start of label value, found '1'"],
  ['m{a="b"', "text format parsing error in line 1: unexpected end of input stream"],
  ["# HELP m x", "text format parsing error in line 1: unexpected end of input stream"],
  [
    "# TYPE m counter\nm 1\n# TYPE m gauge\n",
    'text format parsing error in line 3: second TYPE line for metric name "m", or TYPE reported after samples',
  ],
];

for (const [body, message] of errors) {
  test(`refuses ${JSON.stringify(body)}`, () => {
    assert.throws(() => parseText(body), { message });
  });
}

test("reads HELP, TYPE, labels with escapes, special floats; ignores bare comments", () => {
  const families = parseText(
    '# HELP\n# HELP m a\\nb\n# TYPE m gauge\nm{a="x\\"y\\n"} +Inf\nn NaN\n\n# just a comment\n',
  );
  assert.equal(families.length, 2);
  const [m, n] = families;
  assert.equal(m?.help, "a\nb");
  assert.equal(m?.type, "gauge");
  assert.deepEqual(m?.metrics[0]?.labels, [["a", 'x"y\n']]);
  assert.equal(m?.metrics[0]?.value, Number.POSITIVE_INFINITY);
  assert.ok(Number.isNaN(n?.metrics[0]?.value));
});

test("folds histogram and summary samples into one metric per label set", () => {
  const [h] = parseText(
    '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n',
  );
  assert.equal(h?.metrics.length, 1);
  assert.deepEqual(h?.metrics[0]?.buckets, [
    [1, 1],
    [Number.POSITIVE_INFINITY, 2],
  ]);
  assert.equal(h?.metrics[0]?.count, 2);
  assert.equal(h?.metrics[0]?.sum, 3);
});

test("blanks after the last newline are not an unterminated line", () => {
  assert.equal(parseText("m 1\n \t").length, 1);
});

test("a summary quantile or histogram bucket whose bound is NaN or missing is dropped, its series kept (as upstream)", () => {
  const [s, h] = parseText(
    '# TYPE s summary\ns{quantile="0.5"} 1\ns{quantile="NaN"} 3\ns{x="y"} 4\n# TYPE h histogram\nh_bucket{le="NaN"} 1\nh_bucket 2\nh_count 1\n',
  );
  assert.deepEqual(
    s?.metrics.map((m) => [m.labels, m.quantiles]),
    [
      [[], [[0.5, 1]]],
      [[["x", "y"]], []],
    ],
  );
  assert.deepEqual(
    h?.metrics.map((m) => [m.buckets, m.count]),
    [[[], 1]],
  );
});
