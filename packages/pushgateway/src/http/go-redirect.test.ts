import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeUtf8Lossless } from "../exposition/lossless-utf8.js";
import { escapeGoPath, goRedirect } from "./go-redirect.js";

test("escapeGoPath() escapes as net/url's EscapedPath does", () => {
  assert.equal(escapeGoPath("/metrics/job/a/b c"), "/metrics/job/a/b%20c");
  assert.equal(escapeGoPath("/metrics/job/a/Π"), "/metrics/job/a/%CE%A0");
  assert.equal(escapeGoPath(`/a/'<>"!*()?#%`), "/a/%27%3C%3E%22%21%2A%28%29%3F%23%25");
  assert.equal(escapeGoPath("/a/$&+,:;=@-_.~"), "/a/$&+,:;=@-_.~");
  // A path holding bytes that are not UTF-8 (`/a%E2%82//b` cleaned) goes back out with those bytes, as Go's does; it
  // was written %EF%BF%BD%EF%BF%BD (found by http-surface-fuzz beside 1.5.1).
  const bytes = Buffer.concat([
    Buffer.from("/a"),
    Buffer.from([0xe2, 0x82]),
    Buffer.from("/b"),
    Buffer.from([0xff]),
  ]);
  assert.equal(escapeGoPath(decodeUtf8Lossless(bytes)), "/a%E2%82/b%FF");
});

// Debian's prometheus-pushgateway 1.5.1 answering `/metrics/job/a//b%20c?x=1&y=%20` (Go's ServeMux, http.Redirect).
test("goRedirect() answers as Go's http.Redirect: HTML for GET, headers only for HEAD, empty otherwise", () => {
  const target = { path: "/metrics/job/a/b c", query: "x=1&y=%20", status: 301 as const };
  assert.deepEqual(goRedirect("GET", target), {
    status: 301,
    headers: { Location: "/metrics/job/a/b%20c?x=1&y=%20", "Content-Type": "text/html; charset=utf-8" },
    body: '<a href="/metrics/job/a/b%20c?x=1&amp;y=%20">Moved Permanently</a>.\n\n',
  });
  assert.deepEqual(goRedirect("HEAD", target).headers, goRedirect("GET", target).headers);
  assert.equal(goRedirect("HEAD", target).body, "");
  assert.deepEqual(goRedirect("PUT", { ...target, status: 307 }), {
    status: 307,
    headers: { Location: "/metrics/job/a/b%20c?x=1&y=%20" },
    body: "",
  });
});
