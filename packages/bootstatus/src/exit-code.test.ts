import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError, UsageError } from "./errors.js";
import { EXIT_TIMEOUT, exitCodeFor, exitCodeForError } from "./exit-code.js";

test("exitCodeFor() follows cloud-init: 1 error, 2 degraded, 0 healthy", () => {
  assert.equal(exitCodeFor("error"), 1);
  assert.equal(exitCodeFor("degraded"), 2);
  assert.equal(exitCodeFor("healthy"), 0);
});

test("exitCodeForError() gives 2 for usage errors like argparse, 1 for every other failure", () => {
  assert.equal(exitCodeForError(new UsageError("unrecognized arguments: --x")), 2);
  assert.equal(exitCodeForError(new InputError("Cannot validate")), 1);
  assert.equal(exitCodeForError(new TypeError("a bug")), 1);
  assert.equal(EXIT_TIMEOUT, 3);
});

test("exitCodeFor() with allowDegraded turns only degraded's 2 into 0", () => {
  assert.equal(exitCodeFor("degraded", { allowDegraded: true }), 0);
  assert.equal(exitCodeFor("error", { allowDegraded: true }), 1);
  assert.equal(exitCodeFor("healthy", { allowDegraded: true }), 0);
  assert.equal(exitCodeFor("degraded", { allowDegraded: false }), 2);
});
