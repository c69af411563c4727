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

test("int flags read numbers as Go's strconv.ParseInt(s, 0, 64): prefixes, octal, underscores, range", () => {
  const port = (v: string) => parseFlags(["-port", v]).port;
  assert.equal(port("0x2328"), 9000);
  assert.equal(port("0o21450"), 9000);
  assert.equal(port("021450"), 9000);
  assert.equal(port("0b10001100101000"), 9000);
  assert.equal(port("9_000"), 9000);
  assert.equal(port("+9000"), 9000);
  assert.equal(port("-1"), -1);
  // Past a double's exact range the number is kept whole, for the listen error that names it.
  assert.equal(port("9223372036854775807"), 9223372036854775807n);
  const refused = (v: string, why: string) =>
    assert.throws(
      () => parseFlags(["-max-multipart-mem", v]),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message === `invalid value ${JSON.stringify(v)} for flag -max-multipart-mem: ${why}`,
    );
  for (const v of ["9_", "_9", "0x", "08", "1e3", "9 ", "", "0x_1_", "١"]) refused(v, "parse error");
  for (const v of ["9223372036854775808", "-9223372036854775809", "99999999999999999999x"])
    refused(v, "value out of range");
  assert.equal(parseFlags(["-max-multipart-mem", "-9223372036854775808"]).maxMultipartMem, -(2 ** 63));
});

test("Go's flag syntax errors, quoting and -h: what follows -h is not read", () => {
  for (const arg of ["---x", "-=x", "--=", "---"])
    assert.throws(
      () => parseFlags([arg]),
      (e: unknown) => e instanceof UsageError && e.message === `bad flag syntax: ${arg}`,
    );
  assert.throws(
    () => parseFlags(["-port", 'a"b\n']),
    (e: unknown) =>
      e instanceof UsageError && e.message === 'invalid value "a\\"b\\n" for flag -port: parse error',
  );
  assert.throws(
    () => parseFlags(["-verbose=é"]),
    (e: unknown) =>
      e instanceof UsageError && e.message === 'invalid boolean value "é" for -verbose: parse error',
  );
  assert.equal(parseFlags(["-h", "-bogus"]).help, true);
  assert.equal(parseFlags(["-help=x", "-port", "x"]).help, true);
  assert.throws(() => parseFlags(["-bogus", "-h"]), UsageError);
});
