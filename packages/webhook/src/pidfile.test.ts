import assert from "node:assert/strict";
import { test } from "node:test";
import { PidfileError } from "./errors.js";
import { createPidfile } from "./pidfile.js";

function fakeFs(files: Record<string, string>, live: readonly number[]) {
  return {
    readFile: async (path: string) => files[path],
    exists: async (path: string) => live.some((pid) => path === `/proc/${pid}`),
    writeFile: async (path: string, data: string) => {
      files[path] = data;
    },
  };
}

test("a pid file naming a live process is refused with upstream's words; a stale one is rewritten", async () => {
  const files: Record<string, string> = { "/run/w.pid": "42\n" };
  await assert.rejects(
    createPidfile("/run/w.pid", { pid: 7, deps: fakeFs(files, [42]) }),
    (e) =>
      e instanceof PidfileError &&
      e.message ===
        "Error creating pidfile: pid file found, ensure webhook is not running or delete /run/w.pid",
  );
  await createPidfile("/run/w.pid", { pid: 7, deps: fakeFs(files, []) });
  assert.equal(files["/run/w.pid"], "7");
});

test("a pid file that cannot be written is an error naming the path", async () => {
  const deps = {
    ...fakeFs({}, []),
    writeFile: async () => {
      throw Object.assign(new Error("EACCES"), { code: "EACCES", path: "/root/w.pid", syscall: "open" });
    },
  };
  await assert.rejects(
    createPidfile("/root/w.pid", { pid: 7, deps }),
    /^PidfileError: Error creating pidfile: /,
  );
});
