import assert from "node:assert/strict";
import { test } from "node:test";
import { goErrnoText, goPathError, goSignalText } from "./os-error.js";

const err = (code: string, path?: string) => Object.assign(new Error(`${code}: node text`), { code, path });

test("errno codes read as Go prints them; unknown codes keep node's message", () => {
  assert.equal(goPathError(err("ENOENT", "/x/y.log")), "open /x/y.log: no such file or directory");
  assert.equal(goPathError(err("EACCES", "/p"), "mkdir"), "mkdir /p: permission denied");
  assert.equal(goErrnoText(err("EWHATEVER")), "EWHATEVER: node text");
  assert.equal(
    goPathError(Object.assign(err("ENOENT", "/proc/x"), { syscall: "mkdir" })),
    "mkdir /proc/x: no such file or directory",
  );
});

test("signal deaths read as Go's exec errors print them", () => {
  assert.equal(goSignalText("SIGKILL"), "killed");
  assert.equal(goSignalText("SIGHUP"), "hangup");
  assert.equal(goSignalText("SIGSEGV"), "segmentation fault");
  assert.equal(goErrnoText(err("EIO")), "input/output error");
  assert.equal(goErrnoText(err("ENOEXEC")), "exec format error");
});
