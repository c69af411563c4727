import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanPath } from "./clean-path.js";

// net/http's TestServeMuxHandlerRedirects and path.Clean's cleantests (path/path_test.go), rooted.
const CASES: [string, string][] = [
  ["", "/"],
  ["/", "/"],
  ["abc", "/abc"],
  ["/abc/def", "/abc/def"],
  ["/abc//def//ghi", "/abc/def/ghi"],
  ["/./abc/def", "/abc/def"],
  ["/abc/./def", "/abc/def"],
  ["/abc/def/..", "/abc"],
  ["/abc/def/../..", "/"],
  ["/../abc", "/abc"],
  ["/abc/def/../../..", "/"],
  ["/abc/def/", "/abc/def/"],
  ["/abc//", "/abc/"],
  ["/abc/../", "/"],
  ["/a/./", "/a/"],
  ["//a", "/a"],
  ["/metrics/job/x/../y", "/metrics/job/y"],
  ["/hooks/..%2f", "/hooks/..%2f"],
];

test("cleanPath() cleans as Go's ServeMux does, keeping a trailing slash", () => {
  for (const [input, want] of CASES) assert.equal(cleanPath(input), want, input);
});
