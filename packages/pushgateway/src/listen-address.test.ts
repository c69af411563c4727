import assert from "node:assert/strict";
import { test } from "node:test";
import { listenAddress, splitHostPort } from "./listen-address.js";

// Go's net/ipsock_test.go TestSplitHostPort, the failures.
test("splitHostPort() fails where Go's SplitHostPort fails, with its reason", () => {
  const cases: [string, string][] = [
    ["golang.org", "missing port in address"],
    ["127.0.0.1", "missing port in address"],
    ["[::1]", "missing port in address"],
    ["[fe80::1%lo0]", "missing port in address"],
    ["[localhost%lo0]", "missing port in address"],
    ["localhost%lo0", "missing port in address"],
    ["::1", "too many colons in address"],
    ["fe80::1%lo0", "too many colons in address"],
    ["fe80::1%lo0:80", "too many colons in address"],
    ["[foo:bar]", "missing port in address"],
    ["[foo:bar]baz", "missing port in address"],
    ["[foo]bar:baz", "missing port in address"],
    ["[foo]:[bar]:baz", "too many colons in address"],
    ["[foo]:[bar]baz", "unexpected '[' in address"],
    ["foo[bar]:baz", "unexpected '[' in address"],
    ["foo]bar:baz", "unexpected ']' in address"],
  ];
  for (const [address, error] of cases) assert.deepEqual(splitHostPort(address), { error }, address);
  assert.deepEqual(splitHostPort("[::1]:80"), { host: "::1", port: "80" });
  assert.deepEqual(splitHostPort(":9091"), { host: "", port: "9091" });
});

// What Debian's prometheus-pushgateway logs (`err=...`) for these --web.listen-address values.
test("listenAddress() gives Go's listen errors", () => {
  assert.equal(listenAddress("bogus"), "listen tcp: address bogus: missing port in address");
  assert.equal(listenAddress("127.0.0.1:99999"), "listen tcp: address 99999: invalid port");
  assert.equal(listenAddress("127.0.0.1:-1"), "listen tcp: address -1: invalid port");
  assert.equal(listenAddress("127.0.0.1:nope"), "listen tcp: address tcp/nope: unknown port");
  assert.deepEqual(listenAddress(":9091"), { host: "::", port: 9091 });
  assert.deepEqual(listenAddress("[::1]:0"), { host: "::1", port: 0 });
  assert.deepEqual(listenAddress("127.0.0.1:"), { host: "127.0.0.1", port: 0 });
});
