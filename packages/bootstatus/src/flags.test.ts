import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "./errors.js";
import { parseEnvSwitch, parseFlags } from "./flags.js";

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
  [["--allow-degraded=1"], /ignored explicit argument/],
  [["validate", "--quiet"], /argument --quiet: only the status and report commands take it, not validate/],
  [["--allow-degraded", "convert"], /argument --allow-degraded: only the status and report commands take it/],
  [["schema", "-w"], /argument --wait: only the status and report commands take it, not schema/],
  [["convert", "--root", "/x"], /argument --root: only the status and report commands take it/],
  [["--strict"], /argument --strict: needs --explain/],
  [["--wait-for-reboot", "maybe"], /argument --wait-for-reboot: invalid choice: 'maybe'/],
  [["--wait-for-reboot=no"], /argument --wait-for-reboot: needs --wait or --timeout/],
  [["--to", "https://x"], /argument --to: only the report command takes it, not status/],
  [["report"], /the report command needs --to URL/],
  [["schema", "--explain"], /argument --explain: only the status and report commands take it/],
];
// argparse's own words for the options `cloud-init status` has (Python 3.11's argparse over status.py's
// get_parser, as Debian's cloud-init runs it): stderr differs only in the program name.
const argparseErrors: [string, string][] = [
  ["-lx", "argument -l/--long: ignored explicit argument 'x'"],
  ["-lwx", "argument -w/--wait: ignored explicit argument 'x'"],
  ["-lxw", "argument -l/--long: ignored explicit argument 'xw'"],
  ["-l=x", "argument -l/--long: ignored explicit argument 'x'"],
  ["-xl", "unrecognized arguments: -xl"],
  ["-w=", "argument -w/--wait: ignored explicit argument ''"],
  ["-lw=x", "argument -w/--wait: ignored explicit argument '=x'"],
  ["--long=", "argument -l/--long: ignored explicit argument ''"],
  ["--wai=1", "argument -w/--wait: ignored explicit argument '1'"],
  ["-h=x", "argument -h/--help: ignored explicit argument 'x'"],
];
for (const [arg, message] of argparseErrors) {
  test(`parseFlags() refuses ${arg} with argparse's message`, () => {
    assert.throws(
      () => parseFlags([arg]),
      (e: unknown) => e instanceof UsageError && e.message === message,
    );
  });
}

test("parseFlags() reads the abbreviations cloud-init accepts as cloud-init does, though --wait-for-reboot shares them", () => {
  for (const prefix of ["--w", "--wa", "--wai"]) {
    const flags = parseFlags([prefix]);
    assert.equal(flags.wait, true, prefix);
    assert.equal(flags.waitForReboot, true, prefix);
  }
  assert.equal(parseFlags(["--l", "--f", "json"]).long, true);
  assert.equal(parseFlags(["--wait-", "no", "-w"]).waitForReboot, false);
  // Between options of ours alone an abbreviation stays ambiguous, as argparse has it.
  assert.throws(() => parseFlags(["--t", "1"]), /ambiguous option: --t could match --timeout, --to/);
});

for (const [argv, message] of bad) {
  test(`parseFlags() rejects ${JSON.stringify(argv)} with a usage error`, () => {
    assert.throws(
      () => parseFlags(argv),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
    );
  });
}

test("parseFlags() reads --allow-degraded and --quiet, off by default, prefixes included", () => {
  const none = parseFlags([]);
  assert.equal(none.allowDegraded, false);
  assert.equal(none.quiet, false);
  const both = parseFlags(["--allow", "--wait", "--qu"]);
  assert.equal(both.allowDegraded, true);
  assert.equal(both.quiet, true);
});

test("parseEnvSwitch() reads 1/true/yes/on and 0/false/no/off/empty, refuses anything else", () => {
  assert.equal(parseEnvSwitch("X", undefined), false);
  for (const on of ["1", "true", "YES", " on "]) assert.equal(parseEnvSwitch("X", on), true, on);
  for (const off of ["", "0", "False", "no", "off"]) assert.equal(parseEnvSwitch("X", off), false, off);
  assert.throws(
    () => parseEnvSwitch("BOOTSTATUS_ALLOW_DEGRADED", "2"),
    (e: unknown) => e instanceof UsageError && /BOOTSTATUS_ALLOW_DEGRADED: invalid value '2'/.test(e.message),
  );
});

test("parseFlags() reads --explain, --strict, --wait-for-reboot and report --to", () => {
  const flags = parseFlags(["--explain", "--strict", "--wait-for-reboot=no", "-w"]);
  assert.equal(flags.explain, true);
  assert.equal(flags.strict, true);
  assert.equal(flags.waitForReboot, false);
  assert.equal(parseFlags([]).waitForReboot, true);
  const report = parseFlags(["report", "--to", "pushgateway://h:9091/job/j", "--timeout", "60"]);
  assert.equal(report.command, "report");
  assert.equal(report.to, "pushgateway://h:9091/job/j");
  assert.equal(report.timeout, 60);
});
