import assert from "node:assert/strict";
import { test } from "node:test";
import { formatText } from "./format-text.js";
import { parseText } from "./parse-text.js";
import { mergeFamilies, parseRenderedFamily, renderFamily, seriesKey } from "./rendered-family.js";

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
  const a = { name: "a", help: "first", type: "gauge" as const, lines: ["a 1"], keys: ["k1"] };
  const b = { name: "b", help: undefined, type: "counter" as const, lines: ["b 1"], keys: ["kb"] };
  const a2 = { name: "a", help: "second", type: "counter" as const, lines: ["a 2"], keys: ["k2"] };
  const [merged, lone] = mergeFamilies([a, b, a2]);
  assert.deepEqual(merged, {
    name: "a",
    help: "first",
    type: "gauge",
    lines: ["a 1", "a 2"],
    keys: ["k1", "k2"],
  });
  assert.equal(lone, b);
  assert.deepEqual(a.lines, ["a 1"]);
});
