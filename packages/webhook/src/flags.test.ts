import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "./errors.js";
import { defaultHttpMethods, parseFlags, usage } from "./flags.js";

test("defaults are upstream's", () => {
  const c = parseFlags([]);
  assert.equal(c.ip, "0.0.0.0");
  assert.equal(c.port, 9000);
  assert.equal(c.urlprefix, "hooks");
  assert.equal(c.verbose, false);
});

test("Go flag syntax: -f v, -f=v, --f, bools, repeatable -hooks and -header", () => {
  const c = parseFlags([
    "--port=8080",
    "-ip",
    "127.0.0.1",
    "-verbose",
    "-hooks",
    "a.json",
    "-hooks=b.yaml",
    "-header",
    "X-A=1",
    "-header",
    "X-B=c=d",
  ]);
  assert.equal(c.port, 8080);
  assert.equal(c.ip, "127.0.0.1");
  assert.equal(c.verbose, true);
  assert.deepEqual(c.hooks, ["a.json", "b.yaml"]);
  assert.deepEqual(c.headers, [
    ["X-A", "1"],
    ["X-B", "c=d"],
  ]);
});

test("parsing stops at the first non-flag argument, as Go's flag package does", () => {
  const c = parseFlags(["-verbose", "extra", "-port", "1"]);
  assert.equal(c.port, 9000);
});

test("unknown flags, bad numbers and bad headers are usage errors with Go's messages", () => {
  assert.throws(
    () => parseFlags(["-nope"]),
    (e: unknown) => e instanceof UsageError && e.message === "flag provided but not defined: -nope",
  );
  assert.throws(
    () => parseFlags(["-port", "x"]),
    (e: unknown) => e instanceof UsageError && /invalid value "x" for flag -port/.test(e.message),
  );
  assert.throws(
    () => parseFlags(["-header", "foo"]),
    (e: unknown) => e instanceof UsageError && /header flag must be in name=value format/.test(e.message),
  );
  assert.throws(
    () => parseFlags(["-port"]),
    (e: unknown) => e instanceof UsageError && /flag needs an argument: -port/.test(e.message),
  );
});

test("-help lists 2.8.0's flags only; the flags beyond it still parse", () => {
  const text = usage();
  for (const hidden of ["-socket", "-log-format", "-max-body-bytes"])
    assert.ok(!text.includes(`  ${hidden} `), hidden);
  assert.ok(text.includes("  -x-request-id-limit int\n"));
  const config = parseFlags(["-socket", "/tmp/s", "-log-format", "json", "-max-body-bytes", "10"]);
  assert.deepEqual([config.socket, config.logFormat, config.maxBodyBytes], ["/tmp/s", "json", 10]);
});

test("-http-methods as webhook.go reads it (what Debian's 2.8.0 answered: `,` refuses every method with 405)", () => {
  assert.deepEqual(defaultHttpMethods(""), []);
  assert.deepEqual(defaultHttpMethods(" "), []);
  assert.deepEqual(defaultHttpMethods("post, Put"), ["POST", "PUT"]);
  assert.deepEqual(defaultHttpMethods("get,,post"), ["GET", "", "POST"]);
  // Only spaces are removed (strings.ReplaceAll(v, " ", "")): a tab stays, and "POST\t" is no request's method.
  assert.deepEqual(defaultHttpMethods("POST\t"), ["POST\t"]);
  // An empty item matches no request (a method is never empty): nothing is allowed.
  assert.deepEqual(defaultHttpMethods(","), ["", ""]);
});
