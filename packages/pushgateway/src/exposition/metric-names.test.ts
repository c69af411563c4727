import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeName, quoteName, unescapeValueEncoding } from "./metric-names.js";

test("escapeName() escapes as prometheus/common's EscapeName for each scheme", () => {
  const cases: [name: string, scheme: Parameters<typeof escapeName>[1], escaped: string][] = [
    ["some.metric", "underscores", "some_metric"],
    ["plain_name", "underscores", "plain_name"],
    ["1st.metric", "underscores", "_st_metric"],
    ["some.metric", "allow-utf-8", "some.metric"],
    ["some.metric_x", "dots", "some_dot_metric__x"],
    ["plain_name", "dots", "plain__name"],
    ["a-b", "dots", "a__b"],
    ["some.metric_x", "values", "U__some_2e_metric__x"],
    ["plain_name", "values", "plain_name"],
    ["Προμηθεύς", "values", "U___3a0__3c1__3bf__3bc__3b7__3b8__3b5__3cd__3c2_"],
  ];
  for (const [name, scheme, escaped] of cases)
    assert.equal(escapeName(name, scheme), escaped, `${name} ${scheme}`);
});

test("unescapeValueEncoding() undoes U__ escaping and leaves invalid sequences as written", () => {
  const cases: [name: string, unescaped: string][] = [
    ["U__foo_2e_bar", "foo.bar"],
    ["U__a__b", "a_b"],
    ["U___55_____", "U__"],
    ["foo_2e_bar", "foo_2e_bar"],
    ["U__foo_2e", "U__foo_2e"],
    ["U__foo_zz_", "U__foo_zz_"],
    ["U__x_1234567_", "U__x_1234567_"],
    ["U__x_d800_", "U__x_d800_"],
  ];
  for (const [name, unescaped] of cases) assert.equal(unescapeValueEncoding(name), unescaped, name);
});

test("quoteName() escapes quotes, backslashes and newlines", () => {
  assert.equal(quoteName('a"b\\c\nd'), '"a\\"b\\\\c\\nd"');
});
