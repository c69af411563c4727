import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { FIXTURES, runCli } from "./support/run-cli.js";

// The command line of `cloud-init status` (its -h, --format, -l/--long, -w/--wait) reads the same in bootstatus:
// Debian's cloud-init parses each of these before it looks at the system, so the two are compared side by side on
// the exit code and argparse's error message (the usage line and the program name differ by design). The options
// bootstatus adds must not change what any of these mean, --wait-for-reboot included (`--wai` is --wait).

const CLOUD_INIT = "/usr/bin/cloud-init";

function cloudInitStatus(args: readonly string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      CLOUD_INIT,
      ["status", ...args],
      { env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }, encoding: "utf8", timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** argparse's last stderr line without its program name: `error: <message>`, or "" for none. */
function argparseError(stderr: string): string {
  const line = stderr.trimEnd().split("\n").at(-1) ?? "";
  const at = line.indexOf(": error: ");
  return at === -1 ? "" : line.slice(at + 2);
}

const ROWS: string[][] = [
  ["-lx"],
  ["-lwx"],
  ["-lxw"],
  ["-l=x"],
  ["-xl"],
  ["-w="],
  ["-lw=x"],
  ["--long="],
  ["--long=yes"],
  ["--wai=1"],
  ["-h=x"],
  ["--format"],
  ["--nope"],
  // Help comes after the rest of the line is read: an abbreviation cloud-init accepts must not be an error.
  ["--w", "-h"],
  ["--wa", "-h"],
  ["--wai", "-h"],
  // (`--f` alone is no row: cloud-init's top-level parser finds it ambiguous with its --file and --force, an
  // argparse quirk that bootstatus, with no such options, does not copy: it reads --format.)
  ["--lo", "--form", "json", "-h"],
  ["-lwh"],
];

for (const args of ROWS) {
  test(`bootstatus ${args.join(" ")} parses as Debian's \`cloud-init status ${args.join(" ")}\``, async () => {
    assert.ok(existsSync(CLOUD_INIT), `${CLOUD_INIT} is missing (apt-get install cloud-init)`);
    const theirs = await cloudInitStatus(args);
    // --root keeps bootstatus off this machine's own state should a row ever get past the parser.
    const ours = await runCli([...args, "--root", `${FIXTURES}done-nocloud/root`]);
    assert.equal(ours.code, theirs.code, `exit code (theirs: ${theirs.stderr}; ours: ${ours.stderr})`);
    assert.equal(argparseError(ours.stderr), argparseError(theirs.stderr));
    if (theirs.code === 0) assert.match(ours.stdout, /^usage: bootstatus /);
  });
}
