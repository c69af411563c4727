import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { buildArtifact } from "./support/archives.js";
import { blockProject } from "./support/block-project.js";
import { FakeCodeHost, type FakeRelease } from "./support/fake-code-host.js";
import { makeProject } from "./support/lock-harness.js";

// A release cooldown (`min_release_age`, after mise's `minimum_release_age`): lock picks releases the code host says
// were published (`published_at`) at least the window ago. Every rule through the CLI (`main()` with the clock
// injected, and the built CLI with the real clock for the shims) against the fake code host.

/** The tests' clock: releases are dated against it. */
const NOW = new Date("2026-11-23T00:00:00Z");

let host: FakeCodeHost;
let undated: FakeCodeHost;
/** The commits of the nightly builds of `acme/cool`, oldest first (the channel's tag points at the last). */
const builds: string[] = [];

function release(version: string, publishedAt: string, options: Partial<FakeRelease> = {}): FakeRelease {
  const name = version.startsWith("nightly") ? "nightly" : version;
  return {
    tag: `v${version}`,
    publishedAt,
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `cool-${name}-${p}.tar.gz`,
      data: Buffer.from(`cool ${version} ${p}`),
    })),
    ...options,
  };
}

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/cool");
  host.addRelease("acme/cool", release("1.2.0", "2026-11-01T00:00:00Z"));
  host.addRelease("acme/cool", release("1.3.0", "2026-11-10T00:00:00Z"));
  // 2 days 14 hours before NOW: held back by 7d (eligible 2026-11-27 10:00), not by 62h.
  host.addRelease("acme/cool", release("1.4.0", "2026-11-20T10:00:00Z"));
  host.addRelease("acme/cool", release("1.5.0-rc.1", "2026-11-21T00:00:00Z", { prerelease: true }));
  // Published at 30 seconds past the minute: its eligibility is printed rounded up, never a minute too early.
  host.addRelease("acme/cool", release("2.0.0", "2026-11-22T00:00:30Z"));
  const dates = ["2026-11-05T00:00:00Z", "2026-11-14T00:00:00Z", "2026-11-22T12:00:00Z"];
  for (const [i, date] of dates.entries()) {
    const sha = host.setTag("acme/cool", "nightly", { commit: `build ${i}` });
    host.setTag("acme/cool", `nightly-${sha}`, { commit: sha });
    host.addRelease("acme/cool", release("nightly", date, { tag: `nightly-${sha}` }));
    builds.push(sha);
  }
  // A host that sends no `published_at` (nao1215/block's fake answers so).
  undated = await FakeCodeHost.start();
  undated.shape = "block";
  undated.addRepo("acme/cool");
  const { publishedAt: _, ...withoutDate } = release("1.3.0", "");
  undated.addRelease("acme/cool", withoutDate);
});

after(async () => {
  await host.close();
  await undated.close();
});

/** `acme/cool` as a project-local tool; `top` and `age` are TOML values for the two `min_release_age` keys. */
function cool(version: string, options: { top?: string; age?: string } = {}): string {
  return `${options.top === undefined ? "" : `min_release_age = ${options.top}\n`}[tools.cool]
version = "${version}"
${options.age === undefined ? "" : `min_release_age = ${options.age}\n`}
[tools.cool.source]
type = "github_release"
repo = "acme/cool"
asset = "cool-{version}-{os}-{arch}.tar.gz"
bin = ["cool"]
platforms = ["linux/amd64", "darwin/arm64"]
[tools.cool.source.channels.nightly]
asset = "cool-nightly-{os}-{arch}.tar.gz"
`;
}

/** A project on `host` whose clock reads `clock.now` at every call. */
async function project(toml: string, clock = { now: NOW }) {
  return makeProject(host, toml, { now: () => clock.now });
}

test("a prefix resolves to the newest release the window admits; lock and lock --check name what it held back", async () => {
  const clock = { now: NOW };
  const p = await project(cool("1", { top: '"7d"' }), clock);
  const lock = await p.run(["lock"]);
  assert.equal(lock.code, 0, lock.stderr);
  assert.equal(
    lock.stdout,
    "cool  locked 1.3.0 (1.4.0 held back until 2026-11-27 10:00 UTC)\nwrote toolmgr.lock\n",
  );
  // The lock format does not change: the strict parser takes it, and nothing of the window is in it.
  const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  assert.equal(parseLockfile(text).tools[0]?.version, "1.3.0");
  assert.doesNotMatch(text, /release_age|published|held/);
  const check = await p.run(["lock", "--check"]);
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, "cool  1.3.0 (up-to-date; 1.4.0 held back until 2026-11-27 10:00 UTC)\n");
  // --allow-young lifts the window for the tool named, for one run.
  const young = await project(cool("1", { top: '"7d"' }), clock);
  assert.equal(
    (await young.run(["lock", "--allow-young", "cool"])).stdout,
    "cool  locked 1.4.0\nwrote toolmgr.lock\n",
  );
  // Five days later 1.4.0 is old enough: the lock would change, and does.
  clock.now = new Date("2026-11-28T00:00:00Z");
  const later = await p.run(["lock", "--check"]);
  assert.deepEqual([later.code, later.stdout], [3, "cool  1.3.0 -> 1.4.0\n"]);
  assert.equal((await p.run(["lock"])).stdout, "cool  1.3.0 -> 1.4.0\nwrote toolmgr.lock\n");
});

test("units m, h, d; [tools.<name>] over the top-level key; TOOLMGR_MIN_RELEASE_AGE over both; 0 turns it off", async () => {
  // 1.4.0 is 62 hours (3720 minutes) old at NOW; eligible from the moment it is as old as the window.
  const cases: [string, { top?: string; age?: string }, Record<string, string>, string][] = [
    ["62h", { top: '"62h"' }, {}, "1.4.0"],
    ["63h", { top: '"63h"' }, {}, "1.3.0"],
    ["3720m", { top: '"3720m"' }, {}, "1.4.0"],
    ["3721m", { top: '"3721m"' }, {}, "1.3.0"],
    ["2d", { top: '"2d"' }, {}, "1.4.0"],
    ["3d", { top: '"3d"' }, {}, "1.3.0"],
    ["no window", {}, {}, "1.4.0"],
    ["per tool shorter", { top: '"7d"', age: '"2d"' }, {}, "1.4.0"],
    ["per tool longer", { top: '"2d"', age: '"7d"' }, {}, "1.3.0"],
    ["per tool off", { top: '"7d"', age: '"0"' }, {}, "1.4.0"],
    ["per tool only", { age: '"20d"' }, {}, "1.2.0"],
    ["env off", { top: '"7d"', age: '"7d"' }, { TOOLMGR_MIN_RELEASE_AGE: "0" }, "1.4.0"],
    ["env over per-tool off", { age: '"0"' }, { TOOLMGR_MIN_RELEASE_AGE: "7d" }, "1.3.0"],
    ["env over top", { top: '"1d"' }, { TOOLMGR_MIN_RELEASE_AGE: "63h" }, "1.3.0"],
  ];
  for (const [what, keys, env, version] of cases) {
    const p = await project(cool("1", keys));
    const check = await p.run(["lock", "--check"], env);
    assert.equal(check.code, 3, `${what}: ${check.stderr}`);
    assert.match(check.stdout, new RegExp(`^cool  missing ${version.replaceAll(".", "\\.")}[ \\n]`), what);
  }
});

test("an exact version younger than the window is refused naming its date, unless --allow-young; then it is kept", async () => {
  const p = await project(cool("1.4.0", { top: '"7d"' }));
  for (const args of [["lock"], ["lock", "--check"]]) {
    const refused = await p.run(args);
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(
      refused.stderr,
      `toolmgr: Cannot lock "cool@1.4.0": the release "v1.4.0" of "acme/cool" was published 2026-11-20 10:00 UTC, younger than min_release_age 7d (${join(p.dir, "toolmgr.toml")} line 1); it becomes eligible 2026-11-27 10:00 UTC. Pin an older release, wait, or take it now with \`toolmgr lock --allow-young cool\`\n`,
    );
  }
  assert.equal(existsSync(join(p.dir, "toolmgr.lock")), false, "a refused lock writes nothing");
  const unknown = await p.run(["lock", "--allow-young", "nosuch"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Cannot allow young releases of "nosuch": it is not in /);
  const allowed = await p.run(["lock", "--allow-young", "cool"]);
  assert.equal(allowed.stdout, "cool  locked 1.4.0\nwrote toolmgr.lock\n", allowed.stderr);
  // The pin is in the lock now: kept and reported, never refused or moved.
  const kept =
    "kept although younger than min_release_age 7d: published 2026-11-20 10:00 UTC, eligible 2026-11-27 10:00 UTC";
  const again = await p.run(["lock"]);
  assert.equal(again.stdout, `cool  1.4.0 (${kept})\ntoolmgr.lock is up to date\n`, again.stderr);
  const check = await p.run(["lock", "--check"]);
  assert.deepEqual([check.code, check.stdout], [0, `cool  1.4.0 (up-to-date; ${kept})\n`]);
  const two = await (await project(cool("2.0.0", { top: '"7d"' }))).run(["lock"]);
  assert.match(
    two.stderr,
    /was published 2026-11-22 00:00 UTC, .*; it becomes eligible 2026-11-29 00:01 UTC\./,
  );
  // An old exact version passes; a young pre-release is refused as a young release is.
  assert.equal((await (await project(cool("1.3.0", { top: '"7d"' }))).run(["lock"])).code, 0);
  const rc = await (await project(cool("1.5.0-rc.1", { top: '"7d"' }))).run(["lock"]);
  assert.equal(rc.code, 1);
  assert.match(rc.stderr, /"v1\.5\.0-rc\.1" of "acme\/cool" was published 2026-11-21 00:00 UTC/);
});

test("a pin already in the lock is kept and reported when a window set later holds it back, never moved", async () => {
  const p = await project(cool("1"));
  assert.equal((await p.run(["lock"])).stdout, "cool  locked 1.4.0\nwrote toolmgr.lock\n");
  const before = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  await p.write(cool("1", { top: '"7d"' }));
  const kept =
    "kept although younger than min_release_age 7d: published 2026-11-20 10:00 UTC, eligible 2026-11-27 10:00 UTC";
  const lock = await p.run(["lock"]);
  assert.equal(lock.stdout, `cool  1.4.0 (${kept})\ntoolmgr.lock is up to date\n`, lock.stderr);
  assert.equal(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), before);
  const check = await p.run(["lock", "--check"]);
  assert.deepEqual([check.code, check.stdout], [0, `cool  1.4.0 (up-to-date; ${kept})\n`]);
  // Under another constraint the pin is not this constraint's: the window decides afresh.
  await p.write(cool("1.4", { top: '"7d"' }));
  const afresh = await p.run(["lock", "--check"]);
  assert.equal(afresh.code, 1);
  assert.match(
    afresh.stderr,
    /"cool@1\.4": every published release it allows is younger than min_release_age 7d/,
  );
});

test("a channel pins its newest build the window admits, found among the channel's tags; exact builds are judged", async () => {
  const [a, b, c] = builds;
  const p = await project(cool("nightly", { top: '"7d"' }));
  const listed = host.count("/repos/acme/cool/git/matching-refs/tags/nightly-");
  const lock = await p.run(["lock"]);
  assert.equal(
    lock.stdout,
    `cool  locked nightly-${b} (nightly-${c} held back until 2026-11-29 12:00 UTC)\nwrote toolmgr.lock\n`,
    lock.stderr,
  );
  assert.equal(host.count("/repos/acme/cool/git/matching-refs/tags/nightly-"), listed + 1);
  const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  assert.match(text, new RegExp(`/nightly-${b}/cool-nightly-linux-amd64\\.tar\\.gz`));
  // Without a window: the build the tag points at, and no listing of the channel's tags.
  const free = await project(cool("nightly"));
  assert.equal((await free.run(["lock"])).stdout, `cool  locked nightly-${c}\nwrote toolmgr.lock\n`);
  assert.equal(host.count("/repos/acme/cool/git/matching-refs/tags/nightly-"), listed + 1);
  // That young build, once pinned, is kept when the window comes.
  await free.write(cool("nightly", { top: '"7d"' }));
  const kept = await free.run(["lock"]);
  assert.match(
    kept.stdout,
    new RegExp(
      `^cool  nightly-${c} \\(kept although younger than min_release_age 7d: published 2026-11-22 12:00 UTC`,
    ),
  );
  // A window older than every build refuses, naming the newest.
  const old = await (await project(cool("nightly", { top: '"30d"' }))).run(["lock"]);
  assert.equal(old.code, 1);
  assert.match(
    old.stderr,
    new RegExp(
      `every published release it allows is younger than min_release_age 30d .*the newest, nightly-${c}, was published 2026-11-22 12:00 UTC and becomes eligible 2026-12-22 12:00 UTC`,
    ),
  );
  // `<channel>-<commit>` is an exact version.
  const young = await (await project(cool(`nightly-${c}`, { top: '"7d"' }))).run(["lock"]);
  assert.equal(young.code, 1);
  assert.match(young.stderr, /was published 2026-11-22 12:00 UTC, younger than min_release_age 7d/);
  const older = await (await project(cool(`nightly-${a}`, { top: '"7d"' }))).run(["lock"]);
  assert.equal(older.stdout, `cool  locked nightly-${a}\nwrote toolmgr.lock\n`, older.stderr);
});

test("outdated names the releases a window holds back, also as JSON", async () => {
  const p = await project(cool("1", { top: '"7d"' }));
  assert.equal((await p.run(["lock"])).code, 0);
  const text = await p.run(["outdated"]);
  assert.equal(
    text.stdout,
    "tool  constraint  pinned  wanted  latest\ncool  1           1.3.0   1.3.0   2.0.0\ncool: 1.4.0 held back until 2026-11-27 10:00 UTC\n",
    text.stderr,
  );
  const json = await p.run(["outdated", "--json"]);
  assert.deepEqual(JSON.parse(json.stdout), [
    {
      name: "cool",
      constraint: "1",
      pinned: "1.3.0",
      wanted: "1.3.0",
      latest: "2.0.0",
      held_back: {
        version: "1.4.0",
        published_at: "2026-11-20T10:00:00.000Z",
        eligible_at: "2026-11-27T10:00:00.000Z",
      },
    },
  ]);
  // A longer window holds back the pin too: lock would keep it (wanted), and 1.4.0 is still named.
  const all = JSON.parse((await p.run(["outdated", "--json"], { TOOLMGR_MIN_RELEASE_AGE: "30d" })).stdout);
  assert.deepEqual([all[0].wanted, all[0].held_back.version], ["1.3.0", "1.4.0"]);
  const keep = await p.run(["lock", "--check"], { TOOLMGR_MIN_RELEASE_AGE: "30d" });
  assert.deepEqual(
    [keep.code, keep.stdout],
    [
      0,
      "cool  1.3.0 (up-to-date; 1.4.0 held back until 2026-12-20 10:00 UTC; kept although younger than min_release_age 30d: published 2026-11-10 00:00 UTC, eligible 2026-12-10 00:00 UTC)\n",
    ],
  );
  // No window, no field: the output is what it was before windows existed.
  const off = JSON.parse((await p.run(["outdated", "--json"], { TOOLMGR_MIN_RELEASE_AGE: "0" })).stdout);
  assert.deepEqual(Object.keys(off[0]), ["name", "constraint", "pinned", "wanted", "latest"]);
  assert.equal(off[0].wanted, "1.4.0");
  // A channel: the build lock would pin, and the newer one held back.
  const n = await project(cool("nightly", { top: '"7d"' }));
  assert.equal((await n.run(["lock"])).code, 0);
  const [row] = JSON.parse((await n.run(["outdated", "--json"])).stdout);
  assert.deepEqual(
    [row.wanted, row.latest, row.held_back.version],
    [`nightly-${builds[1]}`, `nightly-${builds[2]}`, `nightly-${builds[2]}`],
  );
});

test("an http source carries no release date: refused under a window before any request, exempt with 0", async () => {
  const web = new URL(host.browserUrl("acme/cool", "v1.2.3", "x")).origin;
  const toml = (options: { top?: string; age?: string }) =>
    `${options.top ? `min_release_age = ${options.top}\n` : ""}platforms = ["linux/amd64"]
[tools.web]
version = "1"
${options.age ? `min_release_age = ${options.age}\n` : ""}[tools.web.source]
type = "http"
repo = "acme/cool"
url = "${web}/acme/cool/releases/download/v{version}/cool-{version}-{os}-{arch}.tar.gz"
bin = ["cool"]
`;
  const p = await project(toml({ top: '"7d"' }));
  const requests = host.count("/repos/");
  for (const args of [["lock"], ["lock", "--check"]]) {
    const refused = await p.run(args);
    assert.equal(refused.code, 1, args.join(" "));
    assert.equal(
      refused.stderr,
      `toolmgr: Cannot resolve "web": its source is of type "http", whose versions are git tags with no release date, so min_release_age 7d (${join(p.dir, "toolmgr.toml")} line 1) cannot be checked; exempt it in toolmgr.toml with a [tools.web] table holding version = "1" and min_release_age = "0"\n`,
    );
  }
  // The registry's http recipes (vendor downloads) likewise, in the string form too.
  const geth = await (await project('min_release_age = "7d"\n[tools]\ngeth = "1.16"\n')).run(["lock"]);
  assert.equal(geth.code, 1);
  assert.match(
    geth.stderr,
    /"geth": its source is of type "http", .*a \[tools\.geth\] table holding version = "1\.16" and min_release_age = "0"\n$/,
  );
  assert.equal(host.count("/repos/"), requests, "refused before any request");
  const exempt = await project(toml({ top: '"7d"', age: '"0"' }));
  const lock = await exempt.run(["lock"]);
  assert.equal(lock.stdout, "web  locked 1.4.0\nwrote toolmgr.lock\n", lock.stderr);
  // The variable overrides the exemption for its run, and says so.
  const env = await exempt.run(["lock"], { TOOLMGR_MIN_RELEASE_AGE: "1d" });
  assert.equal(env.code, 1);
  assert.match(
    env.stderr,
    /TOOLMGR_MIN_RELEASE_AGE applies to every tool of this run, so unset it and exempt it/,
  );
  const outdated = await exempt.run(["outdated"], { TOOLMGR_MIN_RELEASE_AGE: "1d" });
  assert.deepEqual([outdated.code, outdated.stderr], [1, env.stderr]);
  assert.equal((await p.run(["lock", "--allow-young", "web"])).code, 0, "--allow-young lifts it for one run");
});

test("a release the host gives no publication date for is refused under a window, never admitted", async () => {
  const p = await makeProject(undated, cool("1", { top: '"7d"' }), { now: () => NOW });
  const refused = await p.run(["lock"]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /Cannot resolve "cool@1": the code host gives no publication date \(published_at\) for the release "v1\.3\.0" of "acme\/cool", so min_release_age 7d \(.* line 1\) cannot be checked; exempt it/,
  );
  assert.equal((await p.run(["lock"], { TOOLMGR_MIN_RELEASE_AGE: "0" })).code, 0);
});

test("a min_release_age that does not parse is refused naming the key and its line", async () => {
  const tool =
    '[tools.cool]\nversion = "1"\n[tools.cool.source]\ntype = "github_release"\nrepo = "acme/cool"\nasset = "cool-{version}.tar.gz"\nbin = ["cool"]\n';
  const cases: [string, RegExp][] = [
    [
      `min_release_age = "7w"\n${tool}`,
      /line 1: min_release_age = "7w" is not a duration; write a whole number with m \(minutes\), h \(hours\) or d \(days\), for example "7d", or "0" to turn it off/,
    ],
    [
      `min_release_age = 7\n${tool}`,
      /line 1: min_release_age must be a string such as "7d", not the number 7;/,
    ],
    [`min_release_age = "-7d"\n${tool}`, /line 1: min_release_age = "-7d" is not a duration/],
    [`min_release_age = "1.5d"\n${tool}`, /line 1: min_release_age = "1.5d" is not a duration/],
    [`min_release_age = "7"\n${tool}`, /line 1: min_release_age = "7" is not a duration/],
    [
      `# cooldown\n\nmin_release_age = "99999d"\n${tool}`,
      /line 3: min_release_age = "99999d" is longer than 3650 days/,
    ],
    [cool("1", { age: '"7 d"' }), /line 3: \[tools\.cool\] min_release_age = "7 d" is not a duration/],
    [
      cool("1", { age: "-1" }),
      /line 3: \[tools\.cool\] min_release_age must be a string such as "7d", not the number -1/,
    ],
    [
      `[tools]\nfoundry = { version = "1", min_release_age = "2y" }\n`,
      /line 2: \[tools\.foundry\] min_release_age = "2y" is not a duration/,
    ],
    [
      `[tools]\nfoundry.version = "1"\nfoundry.min_release_age = true\n`,
      /line 3: \[tools\.foundry\] min_release_age must be a string such as "7d", not boolean/,
    ],
    [
      `[tools]\nmin_release_age = "7d"\n`,
      /"min_release_age" is inside \[tools\] because it comes after the \[tools\] header/,
    ],
  ];
  for (const [toml, message] of cases) {
    const p = await project(toml);
    for (const command of ["lock", "status"]) {
      const refused = await p.run([command]);
      assert.equal(refused.code, 1, `${command}: ${toml}`);
      assert.match(refused.stderr, message, toml);
      assert.match(refused.stderr, new RegExp(`^toolmgr: Cannot parse ${join(p.dir, "toolmgr.toml")}`));
    }
  }
  const p = await project(cool("1"));
  const env = await p.run(["lock"], { TOOLMGR_MIN_RELEASE_AGE: "7w" });
  assert.equal(env.code, 2);
  assert.match(
    env.stderr,
    /^toolmgr: Cannot use TOOLMGR_MIN_RELEASE_AGE="7w": it is not a duration; write a whole number with m/,
  );
  assert.equal(existsSync(join(p.dir, "toolmgr.lock")), false);
  // Also where no tool would consult it: a project without tools, and `outdated`.
  const empty = await project("[tools]\n");
  assert.equal((await empty.run(["lock"], { TOOLMGR_MIN_RELEASE_AGE: "-1d" })).code, 2);
  assert.equal((await empty.run(["lock"])).code, 0);
  assert.equal((await empty.run(["outdated"], { TOOLMGR_MIN_RELEASE_AGE: "1.5d" })).code, 2);
});

test("the built CLI dates releases by the real clock, and the shims run what a cooldown locked", async () => {
  const day = 86_400_000;
  host.addRepo("acme/shimmy");
  for (const [version, age] of [
    ["1.0.0", 30 * day],
    ["1.1.0", 60 * 60_000],
  ] as const) {
    host.addRelease("acme/shimmy", {
      tag: `v${version}`,
      publishedAt: new Date(Date.now() - age).toISOString(),
      assets: [
        {
          name: `shimmy-${version}-linux-amd64.tar.gz`,
          data: await buildArtifact("tar.gz", { name: "shimmy", version }),
        },
      ],
    });
  }
  const p = await blockProject(
    host,
    `min_release_age = "7d"
platforms = ["linux/amd64"]
[tools.shimmy]
version = "1"
[tools.shimmy.source]
type = "github_release"
repo = "acme/shimmy"
asset = "shimmy-{version}-{os}-{arch}.tar.gz"
bin = ["shimmy"]
`,
  );
  const lock = await p.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(
    lock.stdout,
    /^shimmy {2}locked 1\.0\.0 \(1\.1\.0 held back until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n/,
  );
  assert.equal((await p.run("sync")).code, 0);
  const shim = await p.shim("shimmy", { args: ["--version"] });
  assert.equal(shim.stdout, "shimmy 1.0.0 --version\n", shim.stderr);
  assert.equal((await p.run("status")).code, 0);
  // A window is not part of the pin: changing it leaves the lock current for the shims, exec and status (the shim
  // hands a project file it does not read over to \`toolmgr exec\`), and only the next lock applies it.
  const toml = join(p.dir, "toolmgr.toml");
  await writeFile(
    toml,
    (await readFile(toml, "utf8")).replace('min_release_age = "7d"', 'min_release_age = "1m"'),
  );
  const after = await p.shim("shimmy", { args: ["--version"] });
  assert.equal(after.stdout, "shimmy 1.0.0 --version\n", after.stderr);
  assert.equal((await p.run("exec", "shimmy")).stdout, "shimmy 1.0.0 \n");
  assert.equal((await p.run("status")).code, 0);
  assert.equal((await p.run("lock")).stdout, "shimmy  1.0.0 -> 1.1.0\nwrote toolmgr.lock\n");
});
