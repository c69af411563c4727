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
  // Found by test/push-fuzz.peers.test.ts, each answered so by 1.5.1 (and current upstream's parser, the same code):
  // a blank after the value starts a timestamp, even at the end of the line;
  ["m 1 \n", 'text format parsing error in line 1: expected integer as timestamp, got ""'],
  ["m 1\t\nn 2\n", 'text format parsing error in line 1: expected integer as timestamp, got ""'],
  // timestamps are int64 (strconv.ParseInt), and what follows one, blanks included, is spurious;
  [
    "m 1 99999999999999999999\n",
    'text format parsing error in line 1: expected integer as timestamp, got "99999999999999999999"',
  ],
  ["m 1 5 \n", 'text format parsing error in line 1: spurious string after timestamp: " "'],
  ["m 1 5 \\x\n", 'text format parsing error in line 1: spurious string after timestamp: " x"'],
  // the type is the rest of the line, trailing blanks included, backslashes dropped;
  ["# TYPE m gauge\t\nm 1\n", 'text format parsing error in line 1: unknown metric type "gauge\\t"'],
  ["# TYPE m foo\\ \nm 1\n", 'text format parsing error in line 1: unknown metric type "foo "'],
  // a histogram's `le` (a summary's `quantile`) is read on every line of the family, when met;
  [
    '# TYPE h histogram\nh_sum{le="x",__name__="y"} 1\n',
    "text format parsing error in line 2: expected float as value for 'le' label, got \"x\"",
  ],
  // duplicates are found at the `=`, before the value; Go quotes the byte it read, not the character.
  ['m{a="1",a="\\q"} 1\n', 'text format parsing error in line 1: duplicate label names for metric "m"'],
  [
    'm{a\u00e9="1"} 1\n',
    "text format parsing error in line 1: expected '=' after label name, found '\u00c3'",
  ],
  ['m{a="\\\u00e9"} 1\n', "text format parsing error in line 1: invalid escape sequence '\\\u00c3'"],
  // a name ends at the first byte that cannot continue it, and what follows is read as the value;
  ["a-b 1\n", 'text format parsing error in line 1: expected float as value, got "-b"'],
  ['m-b{a="x"} 1\n', 'text format parsing error in line 1: expected float as value, got "-b{a=\\"x\\"}"'],
  // an unterminated last comment line fails on what Go reads before the end of the input;
  [
    "m 1\n# TYPE m counter",
    'text format parsing error in line 2: second TYPE line for metric name "m", or TYPE reported after samples',
  ],
  ["# HELP m a\n# HELP m b", 'text format parsing error in line 2: second HELP line for metric name "m"'],
  ["# HELP m a\\q", "text format parsing error in line 1: invalid escape sequence '\\q'"],
  ["# HELP m a\\\\", "text format parsing error in line 1: unexpected end of input stream"],
  ["# TYPE -x", "text format parsing error in line 1: invalid metric name in comment"],
  // `_count` under a histogram's TYPE names the histogram.
  [
    "# TYPE h histogram\n# TYPE h_count gauge\n",
    'text format parsing error in line 2: second TYPE line for metric name "h", or TYPE reported after samples',
  ],
  [
    "# TYPE m gauge_histogram\nm 1\n",
    'text format parsing error in line 2: unexpected type for metric name "m": push gauge histograms as protobuf',
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

test("accepts what 1.5.1's parser accepts (found by test/push-fuzz.peers.test.ts)", () => {
  // A TYPE or HELP line with a name and nothing after it is a comment; a later one for the name counts.
  assert.deepEqual(parseText("# TYPE m\n# HELP m\n# TYPE m gauge\n# HELP m x\nm 1\n"), [
    { name: "m", help: "x", type: "gauge", metrics: [{ labels: [], value: 1 }] },
  ]);
  // Go's ParseInt takes a sign; a gauge histogram's TYPE without samples is dropped with its family.
  assert.equal(parseText("m 1 +5\n")[0]?.metrics[0]?.timestampMs, 5);
  assert.deepEqual(parseText("# TYPE g gauge_histogram\n").length, 0);
  // `le` on a histogram's _sum and _count lines, `quantile` twice in a summary: the bound, not a label.
  assert.deepEqual(
    parseText(
      '# TYPE h histogram\nh_sum{le="1"} 2\nh_count{le="2"} 3\nh{le="1"} 3\n# TYPE s summary\ns{quantile="0.5",quantile="0.9"} 7\n',
    ),
    [
      {
        name: "h",
        help: undefined,
        type: "histogram",
        metrics: [{ labels: [], buckets: [[1, 3]], sum: 2, count: 3 }],
      },
      { name: "s", help: undefined, type: "summary", metrics: [{ labels: [], quantiles: [[0.9, 7]] }] },
    ],
  );
  // A family met by its exact name first keeps the name: `h_count` before `# TYPE h histogram` stays its own.
  assert.deepEqual(
    parseText("h_count 1\n# TYPE h histogram\nh_count 2\n# HELP h_sum s\n").map((f) => [
      f.name,
      f.metrics.length,
    ]),
    [["h_count", 2]],
  );
  // The type's letters compare upper-cased as Go's strings.ToUpper does: dotless ı is I.
  assert.equal(parseText("# TYPE m hıstogram\nm_count 1\n")[0]?.type, "histogram");
});

test("histogram and summary counts are Go's uint64 of the value on amd64, as 1.5.1 stores them", () => {
  const [h, s] = parseText(
    '# TYPE h histogram\nh_bucket{le="1"} 2.5\nh_bucket{le="2"} -1\nh_bucket{le="3"} NaN\nh_bucket{le="5"} 1e300\nh_count 3.7\n# TYPE s summary\ns_count -Inf\ns_sum -1.5\n',
  );
  assert.deepEqual(h?.metrics[0]?.buckets, [
    [1, 2],
    [2, 2 ** 64 - 1],
    [3, 2 ** 63],
    [5, 2 ** 63],
  ]);
  assert.equal(h?.metrics[0]?.count, 3);
  assert.equal(s?.metrics[0]?.count, 2 ** 63);
  assert.equal(s?.metrics[0]?.sum, -1.5);
});

test("the gateway's own lines: a pushed label named le keeps its place before later labels (protobuf scrape, file)", () => {
  const body = '# TYPE h histogram\nh_bucket{job="x",le="é",z="1",le="1"} 1\nh_sum{job="x",le="é",z="1"} 2\n';
  assert.deepEqual(parseText(body, { stored: true })[0]?.metrics[0]?.labels, [
    ["job", "x"],
    ["le", "é"],
    ["z", "1"],
  ]);
});

test("the gateway's own lines: a grouping label named le is a label, the last le the bound (a 500 on /api/v1/metrics)", () => {
  const body =
    '# TYPE h histogram\nh_bucket{job="x",le="é",le="1"} 1\nh_sum{job="x",le="é"} 2\nh_count{job="x",le="é"} 1\n';
  assert.deepEqual(parseText(body, { stored: true })[0]?.metrics, [
    {
      labels: [
        ["job", "x"],
        ["le", "é"],
      ],
      buckets: [[1, 1]],
      sum: 2,
      count: 1,
    },
  ]);
});
