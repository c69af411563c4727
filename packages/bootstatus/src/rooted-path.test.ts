import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rootedPath } from "./rooted-path.js";

function tree(): string {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-root-"));
  mkdirSync(path.join(root, "var/lib/cloud/data"), { recursive: true });
  mkdirSync(path.join(root, "run/cloud-init"), { recursive: true });
  writeFileSync(path.join(root, "var/lib/cloud/data/status.json"), "{}");
  symlinkSync("/var/lib/cloud/data/status.json", path.join(root, "run/cloud-init/status.json"));
  symlinkSync("../../../../../../etc/passwd", path.join(root, "run/cloud-init/escape"));
  symlinkSync("/var/run", path.join(root, "var/run-link"));
  symlinkSync("loop", path.join(root, "run/loop"));
  return root;
}

test("rootedPath() resolves an absolute symlink inside the root, not on the host", (t) => {
  const root = tree();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(
    rootedPath(root, "/run/cloud-init/status.json"),
    path.join(root, "var/lib/cloud/data/status.json"),
  );
});

test("rootedPath() never leaves the root through .. or relative symlinks", (t) => {
  const root = tree();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(rootedPath(root, "/../../etc/passwd"), path.join(root, "etc/passwd"));
  assert.equal(rootedPath(root, "/run/cloud-init/escape"), path.join(root, "etc/passwd"));
});

test("rootedPath() keeps missing paths and stops on symlink loops", (t) => {
  const root = tree();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(rootedPath(root, "/etc/cloud/cloud.cfg"), path.join(root, "etc/cloud/cloud.cfg"));
  assert.ok(rootedPath(root, "/run/loop/x").startsWith(root));
});

test("rootedPath() with root / is the plain absolute path", () => {
  assert.equal(rootedPath("/", "/run/cloud-init/../cloud-init/status.json"), "/run/cloud-init/status.json");
});
