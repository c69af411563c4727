import assert from "node:assert/strict";
import { test } from "node:test";
import { parse as parseToml } from "smol-toml";
import { ProjectFileError, UsageError } from "../errors.js";
import { parseReleaseAge, releaseAgeFromEnv } from "./release-age.js";

const DAY = 86_400_000;

test("windows: whole numbers of minutes, hours or days, or 0", () => {
  const at = (value: unknown) => parseReleaseAge(value, { path: "p", text: "", table: [] }).ms;
  assert.equal(at("0"), 0);
  assert.equal(at("0d"), 0);
  assert.equal(at("90m"), 90 * 60_000);
  assert.equal(at("36h"), 36 * 3_600_000);
  assert.equal(at("7d"), 7 * DAY);
  assert.equal(at("3650d"), 3650 * DAY);
  for (const bad of [
    "7w",
    "7",
    "-7d",
    "1.5d",
    "07d",
    "7D",
    " 7d",
    "7d ",
    "",
    "3651d",
    "1e3d",
    7,
    -1,
    true,
    null,
  ]) {
    assert.throws(() => at(bad), ProjectFileError, String(bad));
  }
  assert.equal(releaseAgeFromEnv({ TOOLMGR_MIN_RELEASE_AGE: "12h" })?.ms, 12 * 3_600_000);
  assert.equal(releaseAgeFromEnv({ TOOLMGR_MIN_RELEASE_AGE: "" }), undefined);
  assert.equal(releaseAgeFromEnv({}), undefined);
  assert.throws(() => releaseAgeFromEnv({ TOOLMGR_MIN_RELEASE_AGE: "1w" }), UsageError);
});

test("a value that does not parse is named with the line that sets it, in every TOML spelling of the key", () => {
  const cases: [string, string[], number][] = [
    ['# top\nmin_release_age = "7w"\n[tools]\n', [], 2],
    ['[tools]\ncool = "1"\n\n[tools.cool2]\nversion = "1"\nmin_release_age = "7w"\n', ["tools", "cool2"], 6],
    ['[tools."cool"]\nversion = "1"\n  min_release_age   =   "7w" # why\n', ["tools", "cool"], 3],
    ['[tools]\ncool = { version = "1", min_release_age = "7w" }\n', ["tools", "cool"], 2],
    ['[tools]\ncool.version = "1"\n"cool".min_release_age = "7w"\n', ["tools", "cool"], 3],
    ['tools.cool.version = "1"\ntools.cool.min_release_age = "7w"\n', ["tools", "cool"], 2],
    // The same key in another tool's table is not this one's line.
    ['[tools.a]\nmin_release_age = "1d"\n[tools.b]\nmin_release_age = "7w"\n', ["tools", "b"], 4],
  ];
  for (const [text, table, line] of cases) {
    let value: unknown = parseToml(text);
    for (const key of [...table, "min_release_age"]) value = (value as Record<string, unknown>)[key];
    assert.throws(
      () => parseReleaseAge(value, { path: "/p/toolmgr.toml", text, table }),
      (error: Error) => error.message.startsWith(`Cannot parse /p/toolmgr.toml line ${line}: `),
      text,
    );
  }
});
