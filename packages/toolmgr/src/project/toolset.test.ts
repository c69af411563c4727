import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/temp-dir.js";
import { ProjectFileError } from "../errors.js";
import { scopedHints, toolsetFile, userToolsetFile } from "./toolset.js";

test("userToolsetFile(): XDG_CONFIG_HOME wins, else ~/.config", () => {
  assert.equal(userToolsetFile({ XDG_CONFIG_HOME: "/c" }, { homedir: "/h" }), "/c/toolmgr/toolmgr.toml");
  assert.equal(
    userToolsetFile({ XDG_CONFIG_HOME: "" }, { homedir: "/h" }),
    "/h/.config/toolmgr/toolmgr.toml",
  );
});

test("toolsetFile(): --global needs the user toolset to exist; otherwise the nearest project file", async () => {
  const root = await tempDir("toolmgr-toolset-");
  const env = { XDG_CONFIG_HOME: join(root, "config") };
  const runtime = { homedir: root };
  await assert.rejects(
    toolsetFile({ global: true, cwd: root, env, runtime }),
    (e) => e instanceof ProjectFileError && /Cannot find the user toolset .*: create it/.test(e.message),
  );
  await mkdir(join(root, "config", "toolmgr"), { recursive: true });
  await writeFile(join(root, "config", "toolmgr", "toolmgr.toml"), "[tools]\n");
  assert.equal(
    await toolsetFile({ global: true, cwd: root, env, runtime }),
    join(root, "config", "toolmgr", "toolmgr.toml"),
  );
  const sub = join(root, "p", "sub");
  await mkdir(sub, { recursive: true });
  await writeFile(join(root, "p", "toolmgr.toml"), "[tools]\n");
  assert.equal(await toolsetFile({ global: false, cwd: sub, env, runtime }), join(root, "p", "toolmgr.toml"));
});

test("scopedHints() names the --global commands for the user toolset only", () => {
  const text = "stale; run `toolmgr lock`, then `toolmgr sync`";
  assert.equal(scopedHints(text, false), text);
  assert.equal(scopedHints(text, true), "stale; run `toolmgr lock --global`, then `toolmgr sync --global`");
});
