import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/temp-dir.js";
import { NotInstalledError } from "../errors.js";
import type { LockedArtifact, LockedTool } from "../lockfile.js";
import { installArtifact } from "./install.js";
import { INSTALL_MARKER, installProblem } from "./install-problem.js";
import { storeLayout } from "./layout.js";

const artifact: LockedArtifact = {
  platform: "linux/amd64",
  url: "https://example.com/hello",
  sha256: "ab".repeat(32),
};
const tool: LockedTool = {
  name: "hello",
  constraint: "1",
  version: "1.0.0",
  bin: ["hello"],
  stripComponents: 0,
  artifacts: [artifact],
};
const now = () => new Date("2026-11-23T12:00:00Z");

async function store() {
  const home = await tempDir("toolmgr-install-");
  const file = join(home, "download");
  await writeFile(file, "#!/bin/sh\necho hello\n");
  return { layout: storeLayout(home), file };
}

test("installArtifact() installs atomically with a marker, then reports present; abandoned temps go, young ones stay", async () => {
  const { layout, file } = await store();
  const toolDir = join(layout.toolsDir, "hello");
  await mkdir(join(toolDir, ".tmp-abandoned"), { recursive: true });
  await mkdir(join(toolDir, ".tmp-in-progress"));
  const twoDaysAgo = new Date("2026-11-21T12:00:00Z");
  await utimes(join(toolDir, ".tmp-abandoned"), twoDaysAgo, twoDaysAgo);
  await utimes(join(toolDir, ".tmp-in-progress"), now(), now());
  assert.equal(await installArtifact(file, { layout, tool, artifact, now }), "installed");
  assert.deepEqual((await readdir(toolDir)).sort(), [".tmp-in-progress", "1.0.0-abababababab"]);
  const dir = join(toolDir, "1.0.0-abababababab");
  assert.deepEqual(JSON.parse(await readFile(join(dir, INSTALL_MARKER), "utf8")), {
    name: "hello",
    version: "1.0.0",
    sha256: artifact.sha256,
    bin: ["hello"],
  });
  assert.equal(await installProblem(dir, tool), undefined);
  assert.equal(await installArtifact(file, { layout, tool, artifact, now }), "present");
});

test("installArtifact() refuses an artifact without a declared executable and leaves nothing behind", async () => {
  const { layout, file } = await store();
  const zipTool: LockedTool = { ...tool, bin: ["hello", "other"] };
  await assert.rejects(
    installArtifact(file, { layout, tool: zipTool, artifact, now }),
    (error: unknown) =>
      error instanceof NotInstalledError && /the artifact has no executable "other"/.test(error.message),
  );
  assert.deepEqual(await readdir(join(layout.toolsDir, "hello")), []);
});

test("installProblem() names what is wrong with an install", async () => {
  const { layout, file } = await store();
  const dir = join(layout.toolsDir, "hello", "1.0.0-abababababab");
  assert.equal(await installProblem(dir, tool), "not installed");
  await installArtifact(file, { layout, tool, artifact, now });
  assert.equal(
    await installProblem(dir, { bin: ["hello", "missing"] }),
    'damaged: the executable "missing" is missing',
  );
  await rm(join(dir, INSTALL_MARKER));
  assert.equal(await installProblem(dir, tool), "damaged: its completion marker is missing");
});
