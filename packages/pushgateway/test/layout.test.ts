// The layout's size bars (style guide "Code style"): no source file over 450 lines, and `main()` reads as the
// start-up sequence, at most 120 lines. Folder cycles are lint's (scripts/check-imports.mjs).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("no source file is over 450 lines", () => {
  const files = sources(SRC);
  assert.ok(files.length > 50, `found the sources (${files.length} files under ${SRC})`);
  const over = files
    .map((f) => ({ file: relative(SRC, f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
    .filter((f) => f.lines > 450);
  assert.deepEqual(over, []);
});

test("main() is at most 120 lines", () => {
  const lines = readFileSync(join(SRC, "main.ts"), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith("export async function main("));
  const end = lines.findIndex((l, i) => i > start && l === "}");
  assert.ok(start >= 0 && end > start, "main() found");
  assert.ok(end - start + 1 <= 120, `main() is ${end - start + 1} lines`);
});
