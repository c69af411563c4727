import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { archiveCase, readTree, treeLines } from "./support/archive-cases.js";
import { runArchiveCase } from "./support/archive-fuzz-run.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { Random } from "./support/fuzz-random.js";
import { writeZip } from "./support/zip-writer.js";

// Property fuzzing of `sync`'s unpacking through the CLI against the fake code host: seeded benign and hostile
// .tar.gz, .tar, .zip and raw artifacts (test/support/archive-cases.ts). For every case: nothing is written outside
// the install (the whole temp root compared before and after, and absolute probes), a refused archive leaves no
// install and the store as before but for the verified cache, errors are words, a hostile archive that leaves the
// install or cannot be unpacked whole is refused, and a benign one installs exactly the tree its entries describe
// (paths, bytes, executable bits, link targets). archive-fuzz.peers.test.ts compares with GNU tar and unzip.
// FUZZ_SEED, FUZZ_CASES and FUZZ_CASE change the run (README "Tests").

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 150);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
});

after(async () => {
  await host?.close();
});

test(`sync unpacks seeded archives safely and exactly (seed ${SEED}, ${CASES} cases)`, {
  timeout: 60_000 + CASES * 1_000,
}, async () => {
  const problems: string[] = [];
  let installed = 0;
  let refused = 0;
  for (let i = 0; i < CASES; i++) {
    if (ONLY !== undefined && i !== ONLY) continue;
    const seed = (SEED + i * 7919) >>> 0;
    const c = archiveCase(new Random(seed), seed);
    const r = await runArchiveCase(host, c, { repo: `a${i}`, seed });
    const found = [...r.problems];
    if (r.install !== undefined && c.expected !== undefined) {
      const got = treeLines(await readTree(r.install));
      const want = treeLines(c.expected);
      if (got.join("\n") !== want.join("\n"))
        found.push(
          `the install differs from the entries:\n      got  ${got.join("\n           ")}\n      want ${want.join("\n           ")}`,
        );
    }
    if (r.code === 0) installed++;
    else refused++;
    const label = `case ${i} (FUZZ_SEED=${SEED} FUZZ_CASE=${i}; ${c.description})`;
    problems.push(...found.map((p) => `${label}:\n    ${p}`));
  }
  assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 6).join("\n\n")}`);
  // The generator reaches both sides.
  if (ONLY === undefined)
    assert.ok(installed >= CASES / 4 && refused >= CASES / 10, `${installed} installed, ${refused} refused`);
});

test("a .tar.bz2 or .tar.xz published cut short is refused in words, wherever it was cut", async () => {
  // Found by archive-fuzz.peers.test.ts: unbzip2-stream fails on a stream cut short with a TypeError of its own
  // ("Cannot read properties of undefined (reading '0')"), which was the message.
  const fixtures = [
    ["hello-1.0.0.tar.bz2", ".tar.bz2", "hello"],
    ["wrapper-tool.tar.xz", ".tar.xz", "wrapper/bin/tool"],
  ] as const;
  for (const [name, ending, bin] of fixtures) {
    const whole = await readFile(new URL(`../../test/fixtures/archives/${name}`, import.meta.url));
    for (const fraction of [0.2, 0.5, 0.8, 0.97]) {
      const cut = Math.floor(whole.length * fraction);
      const c = {
        kind: "tar" as const,
        data: whole.subarray(0, cut),
        strip: 0,
        bins: [bin],
        hostile: ["cut short"],
        mustRefuse: true,
        description: `${name} cut at ${cut}`,
      };
      const r = await runArchiveCase(host, c, { repo: `cut-${ending.slice(5)}-${cut}`, seed: cut, ending });
      assert.deepEqual(r.problems, [], c.description);
      assert.equal(r.code, 1, c.description);
      assert.match(r.stderr, /^toolmgr: Cannot unpack "fz" 1\.0\.0 \(.*\): /, c.description);
      assert.doesNotMatch(r.stderr, /properties of undefined/, c.description);
    }
  }
});

test("a zip made by Info-ZIP on Linux (UTF-8 names without the UTF-8 flag) installs its names as written", async () => {
  // Found comparing with Debian's zip and unzip: yauzl read such names as code page 437 ("é" became "├⌐").
  const names = ["é", "日本/x", "bin/fz"];
  const entries = names.map((name) => ({ name, content: `${name}\n`, unixMode: 0o100755, unflagged: true }));
  const c = {
    kind: "zip" as const,
    data: writeZip(entries),
    strip: 0,
    bins: ["bin/fz"],
    hostile: [],
    mustRefuse: false,
    description: "zip of UTF-8 names without the flag",
  };
  const r = await runArchiveCase(host, c, { repo: "unflagged", seed: 1 });
  assert.deepEqual(r.problems, []);
  assert.ok(r.install !== undefined, r.stderr);
  assert.deepEqual(
    [...(await readTree(r.install)).keys()].sort(),
    ["bin", "bin/fz", "é", "日本", "日本/x"].sort(),
  );
});
