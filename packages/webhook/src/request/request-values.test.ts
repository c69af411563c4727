import assert from "node:assert/strict";
import { test } from "node:test";
import { ParameterNodeError } from "../errors.js";
import { parseBody } from "./payload.js";
import { canonicalHeaderKey, getArgument, getParameter, type RequestData } from "./request-values.js";

async function data(contentType: string, body: string): Promise<RequestData> {
  const parsed = await parseBody(contentType, Buffer.from(body));
  return {
    method: "POST",
    remoteAddr: "127.0.0.1:1234",
    headers: { "X-Hub-Signature": "sha1=ab" },
    query: { q: "1" },
    payload: parsed.payload,
    rawBody: Buffer.from(body),
  };
}

const arg = (source: string, name = "") => ({ source, name, envname: "", base64decode: false });

test("JSON numbers keep their source text; objects render as Go's JSON with sorted keys", async () => {
  const d = await data(
    "application/json",
    '{"n": 1.50, "big": 12345678901234567890, "o": {"b": 1, "a": [true, null]}}',
  );
  assert.equal(getArgument(arg("payload", "n"), d), "1.50");
  assert.equal(getArgument(arg("payload", "big"), d), "12345678901234567890");
  assert.equal(getArgument(arg("payload", "o"), d), '{"a":[true,null],"b":1}');
  assert.equal(getArgument(arg("payload", "o.a.0"), d), "true");
});

test("a literal dotted key wins over the path; arrays take decimal indexes", () => {
  const node = { "a.b": "literal", a: { b: "path" }, list: [{ x: 1 }] };
  assert.equal(getParameter("a.b", node), "literal");
  assert.deepEqual(getParameter("list.0", node), { x: 1 });
  assert.throws(() => getParameter("list.5", node), ParameterNodeError);
  assert.throws(() => getParameter("nope", node), ParameterNodeError);
});

test("header names are canonical; query, request, string and raw body sources", async () => {
  const d = await data("application/x-www-form-urlencoded", "a=1&a=2&b=x+y");
  assert.equal(canonicalHeaderKey("x-hub-signature"), "X-Hub-Signature");
  assert.equal(getArgument(arg("header", "x-hub-signature"), d), "sha1=ab");
  assert.equal(getArgument(arg("url", "q"), d), "1");
  assert.equal(getArgument(arg("payload", "a"), d), "1");
  assert.equal(getArgument(arg("payload", "b"), d), "x y");
  assert.equal(getArgument(arg("request", "method"), d), "POST");
  assert.equal(getArgument(arg("request", "remote-addr"), d), "127.0.0.1:1234");
  assert.equal(getArgument(arg("string", "lit"), d), "lit");
  assert.equal(getArgument(arg("raw-request-body"), d), "a=1&a=2&b=x+y");
  assert.equal(getArgument(arg("entire-query"), d), '{"q":"1"}');
});

test("XML maps as upstream's mxj: attributes as -name, text as #text, repeated elements as arrays", async () => {
  const d = await data("application/xml", '<app id="7"><name>n</name><i>a</i><i>b</i><v t="1">txt</v></app>');
  assert.equal(getArgument(arg("payload", "app.-id"), d), "7");
  assert.equal(getArgument(arg("payload", "app.name"), d), "n");
  assert.equal(getArgument(arg("payload", "app.i.1"), d), "b");
  assert.equal(getArgument(arg("payload", "app.v.#text"), d), "txt");
});

test("an unsupported content type leaves no payload and says why", async () => {
  const parsed = await parseBody("text/plain", Buffer.from("x"));
  assert.equal(parsed.payload, undefined);
  assert.match(parsed.logError ?? "", /unsupported content type header: text\/plain/);
});
