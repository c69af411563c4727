import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "./errors.js";
import { parseFlags } from "./flags.js";

test("parseFlags() defaults to the status command in tabular format", () => {
  const flags = parseFlags([]);
  assert.equal(flags.command, "status");
  assert.equal(flags.format, undefined);
  assert.equal(flags.long, false);
});

test("parseFlags() accepts argparse spellings: =value, bundled shorts and unique prefixes", () => {
  const flags = parseFlags(["status", "-lw", "--form=json", "--root", "/tmp/x", "--time", "1.5"]);
  assert.equal(flags.long, true);
  assert.equal(flags.wait, true);
  assert.equal(flags.format, "json");
  assert.equal(flags.root, "/tmp/x");
  assert.equal(flags.timeout, 1.5);
});

test("parseFlags() takes the file operand of validate and convert", () => {
  assert.equal(parseFlags(["validate", "r.json"]).file, "r.json");
  assert.equal(parseFlags(["convert", "-"]).file, "-");
});

const bad: [string[], RegExp][] = [
  [["--format", "xml"], /invalid choice: 'xml'/],
  [["--timeout", "-1"], /--timeout: invalid value/],
  [["--timeout"], /expected one argument/],
  [["--bogus"], /unrecognized arguments: --bogus/],
  [["-x"], /unrecognized arguments: -x/],
  [["frobnicate"], /invalid choice: 'frobnicate'/],
  [["status", "extra"], /unrecognized arguments: extra/],
  [["--long=yes"], /ignored explicit argument/],
];
for (const [argv, message] of bad) {
  test(`parseFlags() rejects ${JSON.stringify(argv)} with a usage error`, () => {
    assert.throws(
      () => parseFlags(argv),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
    );
  });
}
