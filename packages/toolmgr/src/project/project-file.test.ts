import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/temp-dir.js";
import { ProjectFileError } from "../errors.js";
import { parseSource } from "../source/source.js";
import { findProjectFile } from "./find-project-file.js";
import { loadProject, parseProjectFile, type RecipeLookup } from "./project-file.js";

const hello = parseSource(
  { type: "github_release", repo: "acme/hello", asset: "hello-{version}-{os}-{arch}.tar.gz", bin: ["hello"] },
  "test",
);
const lookup: RecipeLookup = (name) => (name === "hello" ? { source: hello } : undefined);

function parse(text: string) {
  return parseProjectFile(text, { path: "/p/toolmgr.toml", lookup });
}

test("the project file is found in the directory or its nearest ancestor", async () => {
  const root = await tempDir("toolmgr-pf-");
  const deep = join(root, "a", "b");
  await mkdir(deep, { recursive: true });
  await writeFile(join(root, "toolmgr.toml"), '[tools]\nhello = "1"\n');
  assert.equal(await findProjectFile(deep), join(root, "toolmgr.toml"));
  await writeFile(join(root, "a", "toolmgr.toml"), "[tools]\n");
  assert.equal(await findProjectFile(deep), join(root, "a", "toolmgr.toml"));
  const project = await loadProject(root, lookup);
  assert.deepEqual(
    project.tools.map((t) => [t.name, t.constraint.kind]),
    [["hello", "prefix"]],
  );
});

test("string and table forms, sorted by name; a local source carries its fingerprint", () => {
  const project = parse(`platforms = ["linux/arm64", "linux/amd64", "linux/amd64"]
[tools]
zeta = { version = "nightly", source = { type = "github_release", repo = "acme/zeta", asset = "z-{version}.tar.gz", bin = ["z"], channels = { nightly = { asset = "z-nightly.tar.gz" } } } }
hello = "1.2"

[tools.alpha]
version = "2.0.0-rc.1"
[tools.alpha.source]
type = "github_release"
repo = "acme/alpha"
asset = "alpha-{version}-{os}-{arch}.zip"
bin = ["alpha"]
`);
  assert.deepEqual(project.platforms, ["linux/amd64", "linux/arm64"]);
  assert.deepEqual(
    project.tools.map((t) => [t.name, t.constraint.kind, t.source.repo]),
    [
      ["alpha", "prerelease", "acme/alpha"],
      ["hello", "prefix", "acme/hello"],
      ["zeta", "channel", "acme/zeta"],
    ],
  );
  assert.match(project.tools[0]?.fingerprint ?? "", /^sha256:[0-9a-f]{64}$/);
  assert.equal(project.tools[1]?.fingerprint, undefined, "a registry tool has no fingerprint");
});

test("a table without a source uses the registry recipe", () => {
  const project = parse('[tools.hello]\nversion = "1"\n');
  assert.equal(project.tools[0]?.source.repo, "acme/hello");
});

for (const [text, message] of [
  ['plaforms = ["linux/amd64"]', /unknown key "plaforms"/],
  ['platforms = ["linux/x86"]', /unknown platform "linux\/x86"/],
  ['platforms = "linux/amd64"', /"platforms" must be an array/],
  ["tools = 3", /\[tools\] must be a table/],
  ['[tools]\nnope = "1"', /"nope": it is not in the registry.*toolmgr list/],
  ['[tools]\nhello = ">=1.2"', /not a version.*ranges and operators are not supported/],
  ['[tools]\nhello = "1.2.3.4"', /not a version/],
  ['[tools]\nhello = "../evil"', /hello/],
  ['[tools]\nhello = "nightly/x"', /hello/],
  [`[tools]\nhello = "${"n".repeat(33)}"`, /hello/],
  ['[tools.hello]\nversoin = "1"', /unknown key "versoin" in \[tools.hello\]/],
  ["[tools.hello]\n", /\[tools.hello\] needs a "version" string/],
  ['[tools]\nHello = "1"', /tool name "Hello"/],
  ['[tools.x]\nversion = "1"\n[tools.x.source]\ntype = "svn"\nrepo = "a/b"', /tools.x.source/],
  ["[tools\n", /Cannot parse \/p\/toolmgr.toml/],
] as const) {
  test(`refused with a clear message: ${JSON.stringify(text)}`, () => {
    assert.throws(
      () => parse(text),
      (error: unknown) => error instanceof ProjectFileError && message.test(error.message),
    );
  });
}

test("a missing project file says where it looked and what to do", async () => {
  const empty = await tempDir("toolmgr-none-");
  await assert.rejects(loadProject(empty, lookup), /Cannot find toolmgr.toml in .* or any parent directory/);
});
