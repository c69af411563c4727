import assert from "node:assert/strict";
import { test } from "node:test";
import { HooksFileError } from "../errors.js";
import { decodeGoYaml, formatFloat32G, GoFloat, resolvePlain } from "./go-yaml.js";

/** The decoded value with plain prototypes (decoded maps have none, so `__proto__` stays data). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** Refused with Debian's 2.8.0's words for a YAML error, word for word. */
const refused = (text: string, message: string) =>
  assert.throws(
    () => decodeGoYaml(text),
    (e) => e instanceof HooksFileError && e.message === `error converting YAML to JSON: yaml: ${message}`,
    JSON.stringify(text),
  );

test("plain scalars are typed as yaml.v2 resolves them", () => {
  const cases: [string, unknown][] = [
    ["yes", true],
    ["Off", false],
    ["~", null],
    ["0x1F", 31],
    ["0o17", 15],
    ["012", 10],
    ["1_000", 1000],
    ["0b11", 3],
    ["-0b11", -3],
    ["+12", 12],
    ["1:30", "1:30"],
    ["1e20", "1e20"],
    // strconv.ParseFloat overflows: yaml.v2 keeps the text (Debian's 2.8.0 answers "3.3554432e+0752").
    ["3.3554432e+0752", "3.3554432e+0752"],
    [".5e999", ".5e999"],
    ["2001-12-14", "2001-12-14"],
    ["18446744073709551615", 18446744073709551615n],
    // Spelled like Object.prototype properties: plain strings, not the prototype's functions or objects.
    ["constructor", "constructor"],
    ["__proto__", "__proto__"],
    ["toString", "toString"],
    ["hasOwnProperty", "hasOwnProperty"],
  ];
  for (const [text, expected] of cases) assert.deepEqual(resolvePlain(text), expected, text);
  assert.deepEqual(resolvePlain(".5"), new GoFloat(0.5));
  assert.deepEqual(resolvePlain("99999999999999999999"), new GoFloat(1e20));
});

test("floats render as Go's %g of a float32", () => {
  assert.equal(formatFloat32G(1.5), "1.5");
  assert.equal(formatFloat32G(1234567), "1.234567e+06");
  assert.equal(formatFloat32G(123456), "123456");
  assert.equal(formatFloat32G(1e20), "1e+20");
  assert.equal(formatFloat32G(0.0001), "0.0001");
  assert.equal(formatFloat32G(0.00001), "1e-05");
  assert.equal(formatFloat32G(123456.7), "123456.7");
});

test("the docs' pass-file example, with // comments inside the JSON, is refused as 2.8.0 refuses it", () => {
  const text = `[
  {
    "id": "test-file-webhook",
    "pass-file-to-command":
    [
      {
        "envname": "ENV_VARIABLE", // to use $ENV_VARIABLE in execute-command
                                   // if not defined, $HOOK_BINARY will be provided
        "base64decode": true,      // defaults to false
      }
    ]
  }
]`;
  assert.throws(
    () => decodeGoYaml(text),
    (e) =>
      e instanceof HooksFileError &&
      e.message === "error converting YAML to JSON: yaml: line 8: did not find expected ',' or '}'",
  );
});

test("a key's anchor is part of libyaml's simple key: on the line before the key, it is refused", () => {
  // What Debian's 2.8.0 answered (test/startup-fuzz.peers.test.ts found it).
  assert.throws(
    () =>
      decodeGoYaml(
        '[\n  {\n    "id": "yes",\n    "execute-command": "/bin/true", &a\n    "response-message": "x"\n  }\n]',
      ),
    (e) =>
      e instanceof HooksFileError &&
      e.message === "error converting YAML to JSON: yaml: line 4: did not find expected ',' or '}'",
  );
  assert.deepEqual(plain(decodeGoYaml('[{"id": "yes", &a "x": "/bin/true"}]')), [
    { id: "yes", x: "/bin/true" },
  ]);
  assert.deepEqual(plain(decodeGoYaml("- &a\n  id: x\n")), [{ id: "x" }]);
});

test("a multi-line implicit key is refused in a flow mapping, kept without a value", () => {
  assert.throws(() => decodeGoYaml('[{"id": "a", "x": {k\n  y: 1}}]'), /did not find expected ',' or '}'/);
  assert.deepEqual(plain(decodeGoYaml('[{"id": "a", "x": {k\n  y}}]')), [{ id: "a", x: { "k y": null } }]);
  assert.throws(() => decodeGoYaml(`- ${"k".repeat(1100)}: v\n`), /could not find expected ':'/);
});

test("merge keys apply where they stand; map keys become strings as ghodss makes them", () => {
  assert.deepEqual(plain(decodeGoYaml("- &a {id: m}\n- id: k\n  <<: *a\n- <<: *a\n  id: p\n")), [
    { id: "m" },
    { id: "m" },
    { id: "p" },
  ]);
  assert.deepEqual(plain(decodeGoYaml("{yes: 1, 12: 2, 1.5: 3}")), { true: 1, "12": 2, "1.5": 3 });
});

test("what the two readers could read differently is refused", () => {
  assert.throws(() => decodeGoYaml("- id: !!int '12'\n"), HooksFileError);
  assert.throws(() => decodeGoYaml("- id: a\n---\n- id: b\n"), HooksFileError);
});

test("a byte order mark starting the file is libyaml's encoding mark, not text (a JSON file saved with one loads)", () => {
  assert.deepEqual(plain(decodeGoYaml('\uFEFF[{"id": "a"}]')), [{ id: "a" }]);
  assert.deepEqual(plain(decodeGoYaml("\uFEFF- id: b\n")), [{ id: "b" }]);
  assert.throws(() => decodeGoYaml("- id: b\n\uFEFF- id: c\n"), HooksFileError);
});

test("inside [...] or {...}, ? and : starting a plain scalar are libyaml's indicators: refused with its words", () => {
  // What Debian's 2.8.0 answered (test/startup-fuzz.peers.test.ts found it): no line is named for the first line.
  assert.throws(
    () => decodeGoYaml('[{"id": ?"A", "execute-command": "/bin/true"}]'),
    (e) =>
      e instanceof HooksFileError &&
      e.message === "error converting YAML to JSON: yaml: did not find expected node content",
  );
  assert.throws(
    () => decodeGoYaml('[{"id": "a"},\n {"x": :y}]'),
    /yaml: line 1: did not find expected node content/,
  );
  assert.throws(() => decodeGoYaml("[?x]"), HooksFileError);
  // Outside flow collections they start plain scalars on both.
  assert.deepEqual(plain(decodeGoYaml("- id: ?a\n  x: :b\n")), [{ id: "?a", x: ":b" }]);
  assert.deepEqual(plain(decodeGoYaml("[{? a : b}]")), [{ a: "b" }]);
});

test("tabs libyaml refuses outside flow collections and quoted scalars: where a token starts, in block indentation", () => {
  // What Debian's 2.8.0 answered, word for word (test/startup-fuzz.peers.test.ts found the first).
  refused("  \n\t\n", "line 1: found character that cannot start any token");
  refused("\uFEFF  \n\t\n", "line 1: found character that cannot start any token");
  // The yaml package sees this one itself (and names line 1, where 2.8.0 names none).
  assert.throws(() => decodeGoYaml("-\tid: a\n"), /found character that cannot start any token/);
  refused(
    "- id: a\n  x: |\n   \tb\n",
    "line 2: found a tab character where an indentation space is expected",
  );
  // Refused by the yaml package itself here (its own words: the content is less indented than its first line).
  assert.throws(() => decodeGoYaml("- id: a\n  x: |\n    b\n   \tc\n"), HooksFileError);
  assert.throws(() => decodeGoYaml("- id: a\n\t\n  execute-command: x\n"), HooksFileError);
  assert.throws(() => decodeGoYaml("- id: a\n  \t\n"), HooksFileError);
  // Where libyaml takes a tab: after a key's `:`, in a flow collection, in a block scalar's content, in a comment.
  assert.deepEqual(plain(decodeGoYaml("- id:\ta\n  x: |\n    b\n    \tc\n  # \tnote\n")), [
    { id: "a", x: "b\n\tc\n" },
  ]);
  assert.deepEqual(plain(decodeGoYaml('[\n\t{"id": "a",\n\t\t"x": 1}\n]')), [{ id: "a", x: 1 }]);
});

test("inside [...] or {...}, a : not followed by a blank in or after a plain scalar, and a ? in one, are libyaml's errors", () => {
  // Debian's 2.8.0's words (test/startup-fuzz.peers.test.ts found the first: `execute-command:# …` in a flow mapping).
  refused("[{id: é, execute-command:# /bin/true, response-message: x}]", "found unexpected ':'");
  refused("[{id: a, url: http://x}]", "found unexpected ':'");
  refused('[{id: a, x:"b"}]', "found unexpected ':'");
  refused("[{id: a,\n\n url: http://x}]", "line 2: found unexpected ':'");
  refused("[{id: a?b}]", "did not find expected ',' or '}'");
  refused("- id: a\n  x: [a, b?c]\n", "line 1: did not find expected ',' or ']'");
  // JSON's own forms, and block context, read alike.
  assert.deepEqual(plain(decodeGoYaml('[{"id":"a","x":"http://y","y":z}]')), [
    { id: "a", x: "http://y", y: "z" },
  ]);
  assert.deepEqual(plain(decodeGoYaml("- id: a?b\n  url: http://x\n")), [{ id: "a?b", url: "http://x" }]);
});

test("aliases as yaml.v2 resolves them: to the last node given the anchor, before or after; an unknown one is refused", () => {
  // What Debian's 2.8.0 loaded (test/startup-fuzz.peers.test.ts found the unknown anchor the `yaml` package read as null).
  assert.deepEqual(plain(decodeGoYaml("- id: b\n  x: *y\n- id: &y a\n")), [{ id: "b", x: "a" }, { id: "a" }]);
  assert.deepEqual(plain(decodeGoYaml("- id: &y a\n- id: *y\n- id: &y b\n")), [
    { id: "a" },
    { id: "b" },
    { id: "b" },
  ]);
  assert.throws(
    () => decodeGoYaml("- id: a\n  response-message: *x\n"),
    (e) =>
      e instanceof HooksFileError &&
      e.message === "error converting YAML to JSON: yaml: unknown anchor 'x' referenced",
  );
});

test("a block scalar ending the file without a final line break has none, as libyaml reads it", () => {
  // What Debian's 2.8.0 answered (test/startup-fuzz.peers.test.ts found the folded one).
  const last = (indicator: string, end: string) =>
    plain(decodeGoYaml(`- id: a\n  x: ${indicator}\n    l1\n\n    l2${end}`))[0].x;
  assert.deepEqual(
    ["|", ">", "|+", ">-"].map((i) => last(i, "")),
    ["l1\n\nl2", "l1\nl2", "l1\n\nl2", "l1\nl2"],
  );
  assert.deepEqual(
    ["|", ">", "|-"].map((i) => last(i, "\n")),
    ["l1\n\nl2\n", "l1\nl2\n", "l1\n\nl2"],
  );
});

test("a lone CR or NEL ends a line as LF does, and is read as LF (libyaml's IS_BREAK and READ_LINE)", () => {
  // Debian's 2.8.0 loads a file saved with old Mac line ends, and a template's "\r" starts a new YAML line.
  assert.deepEqual(plain(decodeGoYaml("- id: a\r  command-working-directory: /tmp\r- id: b\r")), [
    { id: "a", "command-working-directory": "/tmp" },
    { id: "b" },
  ]);
  assert.deepEqual(plain(decodeGoYaml("- |-\n  a\r  b\u0085  c\r\n  d\n- 'x\r  y'")), ["a\nb\nc\nd", "x y"]);
  assert.throws(
    () => decodeGoYaml("- |-\n  a\rb\n"),
    /^HooksFileError: error converting YAML to JSON: yaml: line 3: /,
  );
});

test("a quoted scalar goes on over lines indented less than its key, as libyaml reads it", () => {
  // Debian's 2.8.0 loads these (a template writing a value of several lines between quotes); the `yaml` package
  // alone refuses them.
  assert.deepEqual(plain(decodeGoYaml("- id: a\n  m: 'one\nt#wo: x'\n  k: 1\n")), [
    { id: "a", m: "one t#wo: x", k: 1 },
  ]);
  assert.deepEqual(plain(decodeGoYaml("- \"one\n t: \\x41 \\\n y\n\tz\n\nend\"\n- 'it''s\nmore''\n x'\n")), [
    "one t: A y z\nend",
    "it's more' x",
  ]);
  // A document marker at the start of a line ends the document for libyaml too: still refused.
  assert.throws(() => decodeGoYaml('- "a\n---\nb"\n'), HooksFileError);
});

test("a comment right after a quoted scalar or a flow collection needs no blank before it, as for libyaml", () => {
  assert.deepEqual(plain(decodeGoYaml("- a: 'x'#c\n  b: ''#0\n- [a]#c\n- {a: 1}#c\n- x#c\n")), [
    { a: "x", b: "" },
    ["a"],
    { a: 1 },
    "x#c",
  ]);
});

test("anchor names are libyaml's letters, digits, - and _: a template writing &lt; where a value starts is refused", () => {
  // Debian's 2.8.0's words and line (counted from 0, as for its other scanner errors).
  for (const value of ["&lt;no value&gt;", "&a#b x"])
    assert.throws(() => decodeGoYaml(`- id: a\n  x: 1\n  m: ${value}\n`), {
      message:
        "error converting YAML to JSON: yaml: line 2: did not find expected alphabetic or numeric character",
    });
  assert.deepEqual(plain(decodeGoYaml("- a: &a_-9 v\n  b: *a_-9\n")), [{ a: "v", b: "v" }]);
});

test("double-quoted escapes are yaml.v2's: \\' is a quote, \\/ is unknown (YAML 1.2's only)", () => {
  // Debian's 2.8.0's answers; a template writes \' with `js` ("{{ js "it's" }}").
  assert.deepEqual(plain(decodeGoYaml(`- "it\\'s \\\\' \\"'"\n- 'a\\'\n`)), ["it's \\' \"'", "a\\"]);
  assert.throws(() => decodeGoYaml('- id: a\n  m: "a\\/b"\n'), {
    message: "error converting YAML to JSON: yaml: line 1: found unknown escape character",
  });
});

test("a null map key is refused in ghodss's words, naming a scalar value as Go's %+#v does", () => {
  // Debian's 2.8.0's lines (a template writing `?` where a value starts makes such a key).
  for (const [value, shown] of [
    ["1", "1"],
    ['"a\\tb"', '"a\\tb"'],
    ["", "<nil>"],
    ["é", '"é"'],
    ["true", "true"],
  ])
    assert.throws(() => decodeGoYaml(`- id: a\n  ? \n  : ${value}\n`), {
      message: `error converting YAML to JSON: Unsupported map key of type: %!s(<nil>), key: <nil>, value: ${shown}`,
    });
});

test("a plain scalar's scan takes the blank lines after it, tabs and all, but a tab left of its indentation", () => {
  // Debian's 2.8.0: a template's output ending in a line of blanks (`{{ "x" }}\n     \t `) loads.
  assert.deepEqual(plain(decodeGoYaml("- id: a\n  m: b\n     \t \n")), [{ id: "a", m: "b" }]);
  assert.deepEqual(plain(decodeGoYaml("- id: a\n  m: b\n   \t \n  c: d\n")), [{ id: "a", m: "b", c: "d" }]);
  assert.throws(() => decodeGoYaml("- id: a\n  m: b\n  \t\n"), {
    message: "error converting YAML to JSON: yaml: line 2: found a tab character that violate indentation",
  });
  // The scan ends at a comment after the blanks (a template's `{{ "x" }}\n    \t#…` loads on 2.8.0), and the next
  // line is a token's again.
  assert.deepEqual(plain(decodeGoYaml("- id: a\n  m: b\n   \t#c\n  k: 1\n")), [{ id: "a", m: "b", k: 1 }]);
  assert.throws(() => decodeGoYaml("- id: a\n  m: b\n    #c\n\t\n"), {
    message: "error converting YAML to JSON: yaml: line 3: found character that cannot start any token",
  });
  // With no scalar there (an empty value), the tab is where a token starts (Debian's 2.8.0 refuses it).
  assert.throws(() => decodeGoYaml("- id: a\n  m:  \r\n    \t\n"), {
    message: "error converting YAML to JSON: yaml: line 2: found character that cannot start any token",
  });
});
