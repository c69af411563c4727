import assert from "node:assert/strict";
import { test } from "node:test";
import { installDir, storeLayout, toolmgrHome } from "./layout.js";

test("toolmgrHome() prefers TOOLMGR_HOME, then XDG_DATA_HOME, then ~/.local/share", () => {
  const linux = { platform: "linux", homedir: "/home/u" };
  assert.equal(toolmgrHome({ TOOLMGR_HOME: "/t", XDG_DATA_HOME: "/x" }, linux), "/t");
  assert.equal(toolmgrHome({ XDG_DATA_HOME: "/x" }, linux), "/x/toolmgr");
  assert.equal(toolmgrHome({}, linux), "/home/u/.local/share/toolmgr");
  assert.equal(
    toolmgrHome(
      { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" },
      { platform: "win32", homedir: "C:\\Users\\u" },
    ),
    "C:\\Users\\u\\AppData\\Local\\toolmgr",
  );
});

test("installDir() names an install by version and a 12-digit digest prefix", () => {
  const layout = storeLayout("/s");
  assert.equal(layout.shimsDir, "/s/shims");
  assert.equal(layout.cacheDir, "/s/cache/sha256");
  assert.equal(
    installDir(layout, { name: "solc", version: "0.8.30", sha256: "0123456789abcdef".repeat(4) }),
    "/s/tools/solc/0.8.30-0123456789ab",
  );
});
