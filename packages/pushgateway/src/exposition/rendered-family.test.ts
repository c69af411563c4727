import assert from "node:assert/strict";
import { test } from "node:test";
import { formatText } from "./format-text.js";
import { parseText } from "./parse-text.js";
import { parseRenderedFamily, renderFamily, seriesKey } from "./rendered-family.js";

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
