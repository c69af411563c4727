import assert from "node:assert/strict";
import { test } from "node:test";
import { xorshift32 } from "../../test/support/xorshift.js";
import { formatText } from "./format-text.js";
import type { MetricFamily, MetricType } from "./metric-family.js";
import { parseText } from "./parse-text.js";
import {
  expositionOrder,
  lineSeriesKey,
  mergeFamilies,
  parseRenderedFamily,
  type RenderedFamily,
  renderFamily,
  seriesKey,
  storedForm,
} from "./rendered-family.js";

test("a family rendered once parses back to the same series", () => {
  const [f] = parseText(
    '# HELP s S.\n# TYPE s summary\ns{a="x\\"y\\n",quantile="0.5"} 1e-05\ns_sum{a="x\\"y\\n"} 1234567\ns_count{a="x\\"y\\n"} 3\n',
  );
  assert.ok(f);
  const rendered = renderFamily(f);
  assert.deepEqual(rendered.lines, [
    's{a="x\\"y\\n",quantile="0.5"} 1e-05\ns_sum{a="x\\"y\\n"} 1.234567e+06\ns_count{a="x\\"y\\n"} 3',
  ]);
  assert.deepEqual(parseRenderedFamily(rendered), f);
});

test("what the consistency check did not guard parses back as stored: two series with the same labels, __name__", () => {
  const labels: [string, string][] = [["job", "j"]];
  const summary = (count: number, sum: number) => ({
    labels,
    count,
    sum,
    quantiles: [[0.5, sum]] as [number, number][],
  });
  const twins: MetricFamily = {
    name: "s",
    help: undefined,
    type: "summary",
    metrics: [summary(1, 2), summary(3, 4)],
  };
  // Parsed together, the two read as one summary holding both quantile lines.
  assert.deepEqual(parseRenderedFamily(renderFamily(twins)), twins);
  const named: MetricFamily = {
    name: "c",
    help: undefined,
    type: "counter",
    metrics: [{ labels: [["__name__", "x"], ...labels], value: 1 }],
  };
  assert.deepEqual(parseRenderedFamily(renderFamily(named)), named);
});

test("series keys order by label count, then values, and differ per label set", () => {
  const key = (labels: [string, string][]) => seriesKey({ labels, value: 1 });
  assert.ok(key([["z", "a"]]) < key([["a", "b"]]));
  assert.ok(
    key([["z", "z"]]) <
      key([
        ["a", "a"],
        ["b", "a"],
      ]),
  );
  assert.notEqual(key([["a", "x"]]), key([["b", "x"]]));
  // Values with NUL (and U+0001) order as Go compares the strings: a prefix first (`/metrics/job/a` before
  // `/metrics/job/a%00b`, which sorted the other way when NUL was only the separator).
  const job = (v: string) =>
    key([
      ["instance", ""],
      ["job", v],
    ]);
  const ordered = ["a", "a\u0000", "a\u0000\u0000", "a\u0000b", "a\u0001", "a\u0001\u0000", "a\u0002", "ab"];
  assert.deepEqual(
    [...ordered].reverse().sort((x, y) => (job(x) < job(y) ? -1 : job(x) > job(y) ? 1 : 0)),
    ordered,
  );
  assert.equal(new Set(ordered.map(job)).size, ordered.length);
});

test("formatText sorts families by name and series by key, HELP only when set", () => {
  const families = parseText('# HELP b B.\nb{x="2"} 2\nb{x="1"} 1\na 1\n').map(renderFamily);
  assert.equal(
    [...formatText(families)].join(""),
    'a 1\n# HELP b B.\n# TYPE b untyped\nb{x="1"} 1\nb{x="2"} 2\n'.replace(
      "a 1\n",
      "# TYPE a untyped\na 1\n",
    ),
  );
});

test("mergeFamilies keeps the first HELP and TYPE, joins series in order, and leaves a lone family as it is", () => {
  const a = { name: "a", help: "first", type: "gauge" as const, lines: ["a 1"] };
  const b = { name: "b", help: undefined, type: "counter" as const, lines: ["b 1"] };
  const a2 = { name: "a", help: "second", type: "counter" as const, lines: ["a 2"] };
  const [merged, lone] = mergeFamilies([a, b, a2]);
  assert.deepEqual(
    { ...merged, lines: [...(merged?.lines ?? [])] },
    {
      name: "a",
      help: "first",
      type: "gauge",
      lines: ["a 1", "a 2"],
    },
  );
  assert.equal(merged?.lines.at(1), "a 2");
  assert.equal(merged?.lines.join("\n"), "a 1\na 2");
  assert.equal(lone, b);
  assert.deepEqual(a.lines, ["a 1"]);
});

test("lineSeriesKey() reads back from the rendered lines the seriesKey of every type, escape and name form", () => {
  const random = xorshift32(38);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  // Label names and values a scrape must order: classic and UTF-8 names, escapes, NUL, commas, braces, spaces.
  const names = ["a", "job", "instance", "le_x", "z9", "dotted.name", 'q"uote', "sp ace", "b\\s", "nl\nx"];
  const values = ["", "x", "a,b", "}{", 'say "hi"', "back\\slash", "two\nlines", "nul\u0000in", "ü ✓", "= ="];
  const types: MetricType[] = ["gauge", "counter", "untyped", "summary", "histogram"];
  for (let n = 0; n < 500; n++) {
    const labelNames = [
      ...new Set(Array.from({ length: Math.floor(random() * 5) }, () => pick(names))),
    ].sort();
    const labels = labelNames.map((k): [string, string] => [k, pick(values)]);
    const type = pick(types);
    const name = pick(["m", "m.dotted", "m_total"]);
    const metric =
      type === "summary"
        ? { labels, quantiles: random() < 0.5 ? [] : [[0.5, 1] as [number, number]], sum: 2, count: 3 }
        : type === "histogram"
          ? { labels, buckets: [[1, 1] as [number, number]], sum: 2, count: 3 }
          : { labels, value: random() };
    const [line] = renderFamily({ name, help: undefined, type, metrics: [metric] }).lines;
    assert.equal(lineSeriesKey(line ?? ""), seriesKey(metric), JSON.stringify(line));
  }
});

test("merged groups' families come out in seriesKey order, whether their sorted runs interleave or not", () => {
  const group = (labels: string, shards: readonly string[]) =>
    storedForm(
      renderFamily(parseText(shards.map((s) => `m{${labels},shard="${s}"} 1\n`).join(""))[0] as MetricFamily),
    );
  const expected = (parts: readonly RenderedFamily[]) =>
    parts
      .flatMap((p) => [...p.lines])
      .sort((a, b) =>
        lineSeriesKey(a) < lineSeriesKey(b) ? -1 : lineSeriesKey(a) > lineSeriesKey(b) ? 1 : 0,
      );
  const shards = ["9", "10", "1", "2"];
  // instance (a grouping label) sorts first among the names: each group's series form one run.
  const runs = [group('instance="b"', shards), group('instance="a"', shards), group('instance="c"', ["5"])];
  // a sorts before instance: the groups' series interleave.
  const mixed = [group('a="x",instance="b"', shards), group('a="y",instance="a"', shards)];
  const mixed2 = [group('a="y",instance="a"', ["3"]), group('a="x",instance="b"', shards)];
  for (const parts of [runs, mixed, mixed2]) {
    const [merged] = mergeFamilies(parts);
    const [ordered] = expositionOrder([merged as RenderedFamily]);
    assert.deepEqual(
      Array.from(ordered?.order ?? [], (i) => merged?.lines.at(i)),
      expected(parts),
    );
  }
});
