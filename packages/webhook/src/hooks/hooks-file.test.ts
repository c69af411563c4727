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
