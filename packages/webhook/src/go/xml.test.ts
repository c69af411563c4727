import assert from "node:assert/strict";
import { test } from "node:test";
import { goMarshal } from "./json.js";
import { decodeGoXml } from "./xml.js";

const json = (xml: string) => {
  const d = decodeGoXml(xml);
  return "value" in d ? goMarshal(d.value) : `error: ${d.error}`;
};

test("mxj's shape: attributes with '-', #text beside them, repeats as lists, values as strings", () => {
  assert.equal(json('<r><a x="1">t</a><b>2</b></r>'), '{"r":{"a":{"#text":"t","-x":"1"},"b":"2"}}');
  assert.equal(json("<r><b/><b>  sp  </b><c></c></r>"), '{"r":{"b":["","sp"],"c":""}}');
  assert.equal(json('<?xml version="1.0"?><!-- c --><r><a>1.50</a></r>'), '{"r":{"a":"1.50"}}');
});

test("namespace prefixes are dropped from element and attribute names", () => {
  assert.equal(
    json('<r xmlns:h="urn:x" xmlns="urn:d"><h:n h:a="v">x</h:n></r>'),
    '{"r":{"-h":"urn:x","-xmlns":"urn:d","n":{"#text":"x","-a":"v"}}}',
  );
});

test("text before the first child makes the element that text; text after children is #text", () => {
  assert.equal(json("<r>text<a>1</a>tail</r>"), '{"r":"text"}');
  assert.equal(json("<r><a>1</a>tail</r>"), '{"r":{"#text":"tail","a":"1"}}');
});

test("CDATA, entities, only the first root", () => {
  assert.equal(
    json("<r><a><![CDATA[c<d]]></a><b>&lt;&amp;&#65;&#x42;</b></r><s/>"),
    '{"r":{"a":"c\\u003cd","b":"\\u003c\\u0026AB"}}',
  );
});

test("mismatched tags, unknown entities and truncation are errors", () => {
  assert.match(json("<r><a></r>"), /^error: .*element <a> closed by <\/r>/);
  assert.match(json("<r>&nbsp;</r>"), /^error: .*invalid character entity &nbsp;/);
  assert.match(json("<r><a>"), /^error: .*unexpected EOF/);
  assert.equal(json("   "), "error: EOF");
});

test("text with 1 MB of spaces inside is trimmed at its ends only, in linear time", {
  timeout: 20_000,
}, () => {
  const inner = `a${" ".repeat(1_000_000)}b`;
  assert.equal(json(`<r> \n${inner}\t </r>`), JSON.stringify({ r: inner }));
});
