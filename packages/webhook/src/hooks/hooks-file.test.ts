import assert from "node:assert/strict";
import { test } from "node:test";
import { HooksFileError } from "../errors.js";
import { expandTemplate, parseHooks } from "./hooks-file.js";

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

test("-template expands getenv, with js escaping, and refuses unknown actions", () => {
  assert.equal(expandTemplate('{{ getenv "X" }}/{{ getenv "Q" | js }}', { X: "v", Q: 'a"b' }), 'v/a\\"b');
  assert.equal(expandTemplate('{{ getenv "UNSET" }}', {}), "");
  assert.throws(() => expandTemplate('{{ cat "/etc/passwd" }}', {}), HooksFileError);
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
