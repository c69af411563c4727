import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { HooksFileError } from "../errors.js";
import { expandTemplate, loadHooksFile, parseHooks } from "./hooks-file.js";

test("JSON and YAML hooks files give the same hooks", () => {
  const json = parseHooks(
    '[{"id":"a","execute-command":"/bin/true","http-methods":["post"],"success-http-response-code":201}]',
  );
  const yaml = parseHooks(
    "- id: a\n  execute-command: /bin/true\n  http-methods: [post]\n  success-http-response-code: 201\n",
  );
  assert.deepEqual(yaml, json);
  assert.equal(json[0]?.successHttpResponseCode, 201);
});

test("a hooks file that is not a list is refused with a clear error", () => {
  assert.throws(() => parseHooks('{"id":"a"}'), HooksFileError);
  assert.throws(() => parseHooks("[{"), HooksFileError);
});

/** Template sources: the environment, and files from a table (any other path cannot be read). */
function sources(env: Record<string, string>, files: Record<string, string> = {}) {
  return { env, readFile: (path: string) => files[path] };
}

test("-template expands getenv, with js escaping, runs Go's template language and refuses what Go refuses", () => {
  assert.equal(
    expandTemplate('{{ getenv "X" }}/{{ getenv "Q" | js }}', sources({ X: "v", Q: 'a"b' })),
    'v/a\\"b',
  );
  assert.equal(expandTemplate('{{ getenv "UNSET" }}', sources({})), "");
  assert.equal(
    expandTemplate(
      '{{ if eq (getenv "E") "prod" }}{{ printf "%s-%03d" "p" 7 }}{{ else }}d{{ end }}',
      sources({ E: "prod" }),
    ),
    "p-007",
  );
  // Half a character out: yaml.v2's reader refuses it (Debian's webhook, observed).
  assert.throws(() => expandTemplate('a{{ slice "é" 0 1 }}b', sources({})), {
    message: "error converting YAML to JSON: yaml: invalid trailing UTF-8 octet",
  });
  assert.throws(() => expandTemplate("{{ if 1 }}", sources({})), {
    name: "HooksFileError",
    message: "template: hooks:1: unexpected EOF",
  });
  assert.throws(() => expandTemplate('{{ index "ab" 5 }}', sources({})), {
    message:
      'template: hooks:1:3: executing "hooks" at <index "ab" 5>: error calling index: index out of range: 5',
  });
});

// Upstream master internal/hook/hook.go cat/credential (#712, #720); the whole-binary comparison with master's
// answers is test/template-functions.peers.test.ts.
test("cat reads a file and drops one trailing newline; a file it cannot read is empty", () => {
  const files = { "/s/one": "secret\n", "/s/two": "a\n\n", "/s/none": "x" };
  assert.equal(
    expandTemplate('{{ cat "/s/one" }}|{{ cat "/s/two" | js }}|{{ cat "/s/none" }}', sources({}, files)),
    "secret|a\\u000A|x", // Go 1.19's JSEscapeString (Debian's build) writes a newline as \u000A
  );
  assert.equal(expandTemplate('[{{ cat "/missing" }}]', sources({})), "[]");
});

test("credential reads $CREDENTIALS_DIRECTORY/<name>, and the variable only when the directory is unset or empty", () => {
  const files = { "/run/creds/token": "from-file\n", "/run/token": "outside" };
  assert.equal(
    expandTemplate(
      '{{ credential "token" }}',
      sources({ CREDENTIALS_DIRECTORY: "/run/creds", token: "env" }, files),
    ),
    "from-file",
  );
  // A directory is set but holds no such file: empty, not the variable.
  assert.equal(
    expandTemplate(
      '[{{ credential "other" }}]',
      sources({ CREDENTIALS_DIRECTORY: "/run/creds", other: "env" }, files),
    ),
    "[]",
  );
  assert.equal(expandTemplate('{{ credential "token" }}', sources({ token: "env" }, files)), "env");
  assert.equal(
    expandTemplate('{{ credential "token" }}', sources({ CREDENTIALS_DIRECTORY: "", token: "env" }, files)),
    "env",
  );
  // path.Join cleans the joined path, as upstream (a name is not confined to the directory).
  assert.equal(
    expandTemplate('{{ credential "../token" }}', sources({ CREDENTIALS_DIRECTORY: "/run/creds/" }, files)),
    "outside",
  );
});

test("of ID and id, the value of id is used: encoding/json reads ghodss's sorted keys, the last match wins", () => {
  assert.equal(parseHooks('[{"ID":"b","id":"a"}]')[0]?.id, "a");
  assert.equal(parseHooks('[{"id":"a","ID":"b"}]')[0]?.id, "a");
});

test("numbers and booleans in string fields read as upstream renders them; wrong types are refused", () => {
  const hooks = parseHooks(
    "- id: 1234567.0\n- id: 0x1F\n- id: yes\n- id: a\n  success-http-response-code: 201.0\n",
  );
  assert.deepEqual(
    hooks.map((h) => h.id),
    ["1.234567e+06", "31", "true", "a"],
  );
  assert.equal(hooks[3]?.successHttpResponseCode, 201);
  assert.throws(
    () => parseHooks('- id: a\n  success-http-response-code: "201"\n'),
    (e) =>
      e instanceof HooksFileError &&
      e.message ===
        "error unmarshaling JSON: json: cannot unmarshal string into Go struct field Hook.success-http-response-code of type int",
  );
  assert.throws(() => parseHooks("- id: a\n  http-methods: POST\n"), /of type \[\]string/);
});

test("type errors name the field as encoding/json does (innermost struct, path from the hook), the first in sorted order", () => {
  // Each file and the message Debian's webhook 2.8.0 logged for it after "couldn't load hooks from file! ".
  const cases: [string, string][] = [
    ['[{"id":"a","trigger-rule":"x"}]', "string into Go struct field Hook.trigger-rule of type hook.Rules"],
    [
      '[{"id":"a","trigger-rule":{"and":[{"match":{"type":1,"parameter":{"source":[]}}}]}}]',
      "array into Go struct field Argument.trigger-rule.and.match.parameter.source of type string",
    ],
    [
      '[{"id":"a","trigger-rule":{"or":[{"not":"x"}]}}]',
      "string into Go struct field Rules.trigger-rule.or.not of type hook.NotRule",
    ],
    [
      '[{"id":"a","trigger-rule":{"not":{"match":{"parameter":"x"}}}}]',
      "string into Go struct field MatchRule.trigger-rule.not.match.parameter of type hook.Argument",
    ],
    [
      '[{"id":"a","pass-arguments-to-command":["x"]}]',
      "string into Go struct field Hook.pass-arguments-to-command of type hook.Argument",
    ],
    [
      '[{"id":"a","pass-arguments-to-command":[{"name":{}}]}]',
      "object into Go struct field Argument.pass-arguments-to-command.name of type string",
    ],
    [
      '[{"id":"a","response-headers":[{"name":[]}]}]',
      "array into Go struct field Header.response-headers.name of type string",
    ],
    [
      '[{"id":"a","response-headers":{}}]',
      "object into Go struct field Hook.response-headers of type hook.ResponseHeaders",
    ],
    ['[{"id":"a","http-methods":[1,{}]}]', "object into Go struct field Hook.http-methods of type string"],
    ['["x"]', "string into Go value of type hook.Hook"],
    ['[{"id":[],"execute-command":{}}]', "object into Go struct field Hook.execute-command of type string"],
    ['[{"trigger-rule":{"or":{}}}]', "object into Go struct field Rules.trigger-rule.or of type hook.OrRule"],
    [
      '[{"trigger-rule":{"and":[],"match":"x"}}]',
      "string into Go struct field Rules.trigger-rule.match of type hook.MatchRule",
    ],
    [
      '[{"id":"a","pass-file-to-command":[{"base64decode":"yes"}]}]',
      "string into Go struct field Argument.pass-file-to-command.base64decode of type bool",
    ],
  ];
  for (const [file, message] of cases)
    assert.throws(
      () => parseHooks(file),
      { message: `error unmarshaling JSON: json: cannot unmarshal ${message}` },
      file,
    );
});

test("keys no hook field has are ignored as upstream ignores them, Object.prototype's names too", () => {
  // Debian's webhook 2.8.0 loads this file ("loaded: x"); encoding/json ignores fields the struct lacks.
  const [hook] = parseHooks(
    '[{"id":"x","execute-command":"/bin/true","constructor":{"a":1},"__proto__":[1],"toString":{}}]',
  );
  assert.equal(hook?.id, "x");
  assert.equal(hook?.executeCommand, "/bin/true");
  assert.equal(Object.hasOwn(hook ?? {}, "constructor"), false);
});

test("loadHooksFile() fails with Go's os.ReadFile error: open for a missing file, read for a directory", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "webhook-hooks-file-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const load = (path: string) => loadHooksFile(path, { template: false, env: {} });
  // Debian's 2.8.0 logs these after "couldn't load hooks from file! ".
  await assert.rejects(load(join(dir, "none.json")), {
    name: "HooksFileError",
    message: `open ${join(dir, "none.json")}: no such file or directory`,
  });
  await assert.rejects(load(dir), { name: "HooksFileError", message: `read ${dir}: is a directory` });
});

test("what is not a list, or a field of the wrong type, is named with encoding/json's type words (bool, not boolean)", () => {
  // What Debian's 2.8.0 logged (test/startup-fuzz.peers.test.ts found these).
  const refusal = (text: string, message: string) =>
    assert.throws(
      () => parseHooks(text),
      (e) => e instanceof HooksFileError && e.message === `error unmarshaling JSON: json: ${message}`,
      text,
    );
  refusal("true\n", "cannot unmarshal bool into Go value of type hook.Hooks");
  refusal("x\r\n", "cannot unmarshal string into Go value of type hook.Hooks");
  refusal("5", "cannot unmarshal number into Go value of type hook.Hooks");
  refusal('{"id":"a"}', "cannot unmarshal object into Go value of type hook.Hooks");
  refusal(
    '[{"id": "a", "http-methods": false}]',
    "cannot unmarshal bool into Go struct field Hook.http-methods of type []string",
  );
  // A number that is no int is named with its literal as ghodss's JSON wrote it (seed 99 of the start-up fuzzer).
  const code = "into Go struct field Hook.success-http-response-code of type int";
  refusal("- id: a\n  success-http-response-code: 1.5\n", `cannot unmarshal number 1.5 ${code}`);
  refusal('[{"id":"a","success-http-response-code":2.50e-8}]', `cannot unmarshal number 2.5e-8 ${code}`);
  refusal("- id: a\n  success-http-response-code: 1.0e+30\n", `cannot unmarshal number 1e+30 ${code}`);
  refusal(
    "- id: a\n  success-http-response-code: 9223372036854775808\n",
    `cannot unmarshal number 9223372036854775808 ${code}`,
  );
});

test("libyaml's reader refuses a hooks file with bytes that are not UTF-8 or with control characters", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "webhook-hooks-file-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const load = async (bytes: Buffer) => {
    const path = join(dir, "hooks.yaml");
    await writeFile(path, bytes);
    return loadHooksFile(path, { template: false, env: {} });
  };
  const prefix = "error converting YAML to JSON: yaml: ";
  await assert.rejects(load(Buffer.from("- id: a\xff\n", "latin1")), {
    message: `${prefix}invalid leading UTF-8 octet`,
  });
  for (const text of ["null\0", "- id: a\x01\n", "- id: a\x7f\n", "- id: a\u0090\n"])
    await assert.rejects(load(Buffer.from(text)), { message: `${prefix}control characters are not allowed` });
  // A tab, line ends, NEL (a line end too) and what is past U+00A0 are libyaml's printable characters (Debian's
  // 2.8.0 loads "a\u00a0bé").
  assert.deepEqual(
    (await load(Buffer.from("- id: a\u00a0bé😀\t\u0085\r\n"))).map((h) => h.id),
    ["a\u00a0bé😀"],
  );
});

test('an empty path (-hooks "") loads no hooks and no error, as upstream\'s LoadFromFile', async () => {
  assert.deepEqual(await loadHooksFile("", { template: true, env: {} }), []);
});
