import assert from "node:assert/strict";
import { test } from "node:test";
import { computeRoutePrefix, externalUrlPath } from "./external-url.js";

test("externalUrlPath() finds the path as Go's url.Parse does", () => {
  assert.equal(externalUrlPath(""), "");
  assert.equal(externalUrlPath("http://gw.example.org:9091/pushgateway/"), "/pushgateway/");
  assert.equal(externalUrlPath("http://gw.example.org"), "");
  assert.equal(externalUrlPath("foo"), "foo");
  assert.equal(externalUrlPath("/a%20b?x=1#f"), "/a b");
  assert.equal(externalUrlPath("mailto:a@b"), "");
  assert.equal(externalUrlPath("a:b/c"), "");
});

// Debian's prometheus-pushgateway refusing these --web.external-url values (kingpin's URL flag over net/url).
test("externalUrlPath() refuses what Go refuses, with kingpin's text", () => {
  const cases: [string, string][] = [
    [":bad", 'invalid URL: parse ":bad": missing protocol scheme'],
    ["http://a/%zz", 'invalid URL: parse "http://a/%zz": invalid URL escape "%zz"'],
    ["1a:b", 'invalid URL: parse "1a:b": first path segment in URL cannot contain colon'],
    ["a\tb", 'invalid URL: parse "a\\tb": net/url: invalid control character in URL'],
  ];
  for (const [raw, message] of cases) assert.throws(() => externalUrlPath(raw), { message }, raw);
});

test("computeRoutePrefix() as upstream main.go: the prefix, else the external path; one leading slash, none trailing", () => {
  assert.equal(computeRoutePrefix("", ""), "");
  assert.equal(computeRoutePrefix("/", "/ext"), "");
  assert.equal(computeRoutePrefix("foo/", ""), "/foo");
  assert.equal(computeRoutePrefix("", "foo"), "/foo");
  assert.equal(computeRoutePrefix("", "/ext/"), "/ext");
  assert.equal(computeRoutePrefix("/p", "/ext"), "/p");
});
