import assert from "node:assert/strict";
import { test } from "node:test";
import { DuplicateHookError, HooksFileError } from "../errors.js";
import type { Hook } from "./hook.js";
import { HookRegistry } from "./hook-registry.js";
import { parseHooks } from "./hooks-file.js";

/** A registry over in-memory files (name → hooks file text); a missing name fails to load. */
function registry(files: Record<string, string>) {
  const lines: string[] = [];
  const reg = new HookRegistry({
    load: async (file): Promise<Hook[]> => {
      const text = files[file];
      if (text === undefined) throw new HooksFileError(`open ${file}: no such file or directory`);
      return parseHooks(text);
    },
    log: (line) => lines.push(line),
  });
  return { reg, lines, files };
}

const ids = (reg: HookRegistry) => [...reg.hooks().values()].map((h) => `${h.id}:${h.responseMessage}`);

test("start-up: an id repeated within one file is served once (the first), across files it is fatal", async () => {
  const { reg, lines } = registry({
    a: "- {id: x, response-message: first}\n- {id: x, response-message: second}\n",
    b: "- {id: x}\n",
  });
  await reg.loadAll(["a"]);
  assert.deepEqual(ids(reg), ["x:first"]);
  assert.deepEqual(lines, [
    "attempting to load hooks from a",
    "found 2 hook(s) in file",
    "\tloaded: x",
    "\tloaded: x",
  ]);
  const other = registry({ a: "- {id: x}\n", b: "- {id: w}\n- {id: x}\n" });
  await assert.rejects(other.reg.loadAll(["a", "b"]), DuplicateHookError);
});

test("start-up: a file that cannot be loaded is logged and left out", async () => {
  const { reg, lines } = registry({ a: "- {id: x}\n" });
  await reg.loadAll(["missing", "a"]);
  assert.deepEqual(reg.files(), ["a"]);
  assert.match(lines[1] ?? "", /^couldn't load hooks from file! open missing/);
});

test("reload: a repeated id, within the file or from another file, keeps the previous hooks", async () => {
  const { reg, lines, files } = registry({ a: "- {id: x}\n", b: "- {id: w}\n" });
  await reg.loadAll(["a", "b"]);
  files.a = "- {id: x}\n- {id: x}\n";
  await reg.reload("a");
  assert.equal(lines.at(-1), "reverting hooks back to the previous configuration");
  files.a = "- {id: w}\n";
  await reg.reload("a");
  assert.equal(lines.at(-1), "reverting hooks back to the previous configuration");
  files.a = "- {id: x, response-message: new}\n- {id: z}\n";
  await reg.reload("a");
  assert.deepEqual(ids(reg), ["x:new", "z:", "w:"]);
  reg.remove("a");
  assert.deepEqual(ids(reg), ["w:"]);
  assert.equal(lines.at(-1), "removed 2 hook(s) that were loaded from file a");
});

test("a path given twice is listed twice, as upstream's hooksFiles: reloaded twice, one watch, logged twice", async () => {
  // Debian's 2.8.0 logs "setting up file watcher for a" twice (test/startup-fuzz.peers.test.ts found it).
  const { reg, lines } = registry({ a: "[]", b: "- {id: x}\n" });
  await reg.loadAll(["a", "missing", "b", "a"]);
  assert.deepEqual(reg.files(), ["a", "b", "a"]);
  lines.length = 0;
  await reg.reloadAll();
  assert.deepEqual(
    lines.filter((l) => l.startsWith("attempting")),
    [
      "attempting to reload hooks from a",
      "attempting to reload hooks from b",
      "attempting to reload hooks from a",
    ],
  );
  lines.length = 0;
  const watched: string[] = [];
  const changes: ((file: string) => void)[] = [];
  reg.watch({
    watch: (dir, onChange) => {
      watched.push(dir);
      changes.push(onChange);
    },
    exists: async () => false,
  });
  assert.deepEqual(lines, [
    "setting up file watcher for a",
    "setting up file watcher for b",
    "setting up file watcher for a",
  ]);
  assert.deepEqual(watched, [".", "."]);
  changes[0]?.("a");
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(reg.files(), ["b"], "a removed file leaves the list, every time it was given");
});

test("the removal that leaves no hook served is told (upstream then ends webhook unless -verbose or -nopanic)", async () => {
  let told = 0;
  const reg = new HookRegistry({
    load: async (file) => parseHooks(file === "a" ? "- {id: x}\n" : "[]"),
    log: () => undefined,
    onNoHooksLeft: () => told++,
  });
  await reg.loadAll(["a", "b"]);
  reg.remove("b");
  assert.equal(told, 0, "x is still served");
  reg.remove("a");
  assert.equal(told, 1);
});
