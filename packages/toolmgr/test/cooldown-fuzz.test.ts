import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { Random } from "./support/fuzz-random.js";
import { makeProject } from "./support/lock-harness.js";

// A seeded model check of the release cooldown (`min_release_age`): random release lists with random `published_at`,
// random windows (m, h, d, 0; top-level, per tool, TOOLMGR_MIN_RELEASE_AGE), prefix constraints, exact versions with
// and without --allow-young, a channel with dated builds; `lock`, `lock --check` and `outdated --json` through
// `main()` against the fake code host, compared with the small model of the rules below (README "Release cooldown"),
// written from the rules, not from the code. Values that do not parse are refused naming the key and its line.
// FUZZ_SEED, FUZZ_CASES and FUZZ_CASE change the run (README "Tests").

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 300);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const NOW = new Date("2026-11-23T00:00:00Z");
const MINUTE = 60_000;

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
});

after(async () => {
  await host?.close();
});

interface Rel {
  readonly version: string;
  readonly tag: string;
  readonly published: number;
  readonly prerelease: boolean;
  /** A draft (publishes nothing), or a channel build whose tag has no release yet. */
  readonly draft?: boolean;
  readonly unpublished?: boolean;
}

/** The model's answer: the version lock pins and the newest release held back, or why it refuses. */
type Pick =
  | { version: string; held?: Rel | undefined }
  | { refused: "young"; newest: Rel }
  | { refused: "none" };

const parts = (v: string) => v.split(".").map(Number);
const newer = (a: Rel, b: Rel) => {
  const [x, y] = [parts(a.version), parts(b.version)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
  return 0;
};

/** The rules: a release is eligible once it is as old as the window; a pin already locked is kept. */
function model(
  releases: readonly Rel[],
  c: { kind: "prefix" | "exact" | "channel"; text: string },
  options: { window: number; pinned?: string | undefined },
): Pick {
  const young = (r: Rel) => options.window > 0 && r.published + options.window > NOW.getTime();
  if (c.kind === "exact") {
    // A stable version, a pre-release or a channel build: the one release of that name, judged alone.
    const r = releases.find((x) => x.version === c.text);
    if (r === undefined || r.draft || r.unpublished) return { refused: "none" };
    return young(r) && options.pinned !== r.version
      ? { refused: "young", newest: r }
      : { version: r.version };
  }
  if (c.kind === "channel") {
    const builds = releases.filter((r) => r.tag.startsWith("nightly-"));
    const current = builds.at(-1); // the channel's tag points at the last build made
    if (current === undefined || (current.unpublished && options.window === 0)) return { refused: "none" };
    if (!current.unpublished && !young(current)) return { version: current.tag };
    // Newest published first; of two published at once, the later build (the tag moved to it).
    const byDate = builds
      .filter((r) => !r.unpublished)
      .reverse()
      .sort((a, b) => b.published - a.published);
    const youngOnes = byDate.filter(young);
    const pinned = youngOnes.find((r) => r.tag === options.pinned);
    if (pinned) return { version: pinned.tag, held: youngOnes.find((r) => r.published > pinned.published) };
    const old = byDate.find((r) => !young(r));
    if (old === undefined)
      return youngOnes[0] ? { refused: "young", newest: youngOnes[0] } : { refused: "none" };
    return { version: old.tag, held: youngOnes[0] };
  }
  const prefix = c.text === "" ? [] : parts(c.text);
  const candidates = releases
    .filter(
      (r) =>
        !r.prerelease &&
        !r.draft &&
        !r.tag.startsWith("nightly") &&
        prefix.every((p, i) => parts(r.version)[i] === p),
    )
    .sort(newer);
  let held: Rel | undefined;
  for (const r of candidates) {
    if (!young(r)) return { version: r.version, held };
    if (options.pinned === r.version) return { version: r.version, held };
    held ??= r;
  }
  return held ? { refused: "young", newest: held } : { refused: "none" };
}

const WINDOW_UNITS = { m: MINUTE, h: 60 * MINUTE, d: 1440 * MINUTE } as const;

function windowText(rng: Random): { text: string; ms: number } {
  if (rng.chance(0.15)) return { text: "0", ms: 0 };
  const unit = rng.pick(["m", "h", "d"] as const);
  const n = rng.int(0, unit === "d" ? 20 : unit === "h" ? 500 : 30_000);
  return { text: `${n}${unit}`, ms: n * WINDOW_UNITS[unit] };
}

/** A time as the messages print it, to the minute (`2026-11-27 10:00`). */
function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

/** When a release becomes eligible, rounded up to the minute (never a minute at which it is still refused). */
function eligible(r: Rel, window: number): string {
  return iso(Math.ceil((r.published + window) / MINUTE) * MINUTE);
}
async function runCase(i: number): Promise<string[]> {
  const rng = new Random((SEED + i * 7919) >>> 0);
  const repo = `acme/k${i}`;
  host.addRepo(repo);
  // Releases: some windows of interest land exactly on a release's age (eligible from that very moment).
  const windows = [windowText(rng), windowText(rng), windowText(rng)];
  const releases: Rel[] = [];
  const used = new Set<string>();
  for (let n = rng.int(0, 7); n > 0; n--) {
    const version = `${rng.int(1, 2)}.${rng.int(0, 3)}.${rng.int(0, 2)}`;
    if (used.has(version)) continue;
    used.add(version);
    const age = rng.chance(0.3)
      ? rng.pick(windows).ms + rng.pick([-MINUTE, 0, 0, MINUTE])
      : rng.int(0, 40 * 1440) * MINUTE;
    const prerelease = rng.chance(0.1);
    releases.push({
      version: prerelease ? `${version}-rc.1` : version,
      tag: `v${prerelease ? `${version}-rc.1` : version}`,
      published: NOW.getTime() - age,
      prerelease,
      draft: !prerelease && rng.chance(0.08),
    });
  }
  // A channel's builds, each published after the one before (the channel's tag names the newest).
  let built = NOW.getTime() - rng.int(0, 20 * 1440) * MINUTE;
  for (let n = rng.int(0, 3), b = 0; b < n; b++) {
    const sha = host.setTag(repo, "nightly", { commit: `${repo} build ${b}` });
    host.setTag(repo, `nightly-${sha}`, { commit: sha });
    // The tag may have moved to a build whose release is not out yet.
    const unpublished = b === n - 1 && rng.chance(0.2);
    releases.push({
      version: `nightly-${sha}`,
      tag: `nightly-${sha}`,
      published: built,
      prerelease: false,
      unpublished,
    });
    built = Math.min(NOW.getTime(), built + rng.int(1, 8 * 1440) * MINUTE);
  }
  for (const r of releases) {
    const name = r.tag.startsWith("nightly") ? "nightly" : r.version;
    if (r.unpublished) continue;
    host.addRelease(repo, {
      tag: r.tag,
      prerelease: r.prerelease,
      draft: r.draft === true,
      publishedAt: new Date(r.published).toISOString(),
      assets: [{ name: `k-${name}-linux-amd64.tar.gz`, data: Buffer.from(`k ${r.tag}`) }],
    });
  }
  const stable = releases.filter((r) => !r.prerelease && !r.tag.startsWith("nightly"));
  const published = releases.filter((r) => !r.draft && !r.unpublished);
  const c = rng.pick<{ kind: "prefix" | "exact" | "channel"; text: string }>([
    { kind: "prefix", text: String(rng.int(1, 2)) },
    { kind: "prefix", text: `${rng.int(1, 2)}.${rng.int(0, 3)}` },
    { kind: "exact", text: stable.length > 0 && rng.chance(0.8) ? rng.pick(stable).version : "1.9.9" },
    ...(published.length > 0 ? [{ kind: "exact" as const, text: rng.pick(published).version }] : []),
    { kind: "channel", text: "nightly" },
  ]);
  // Where the window is set; a value that does not parse sometimes, in either key.
  const [top, own, env] = [
    rng.chance(0.6) ? rng.pick(windows) : undefined,
    rng.chance(0.4) ? rng.pick(windows) : undefined,
    rng.chance(0.25) ? rng.pick(windows) : undefined,
  ];
  const bad = rng.chance(0.1)
    ? rng.pick(['"7w"', '"-1d"', '"1.5d"', '"7"', '""', '" 7d"', '"7D"', '"99999d"', "7", "true"])
    : undefined;
  const badWhere = rng.pick(["top", "own", "env"] as const);
  // Sometimes an `http` source: its versions are git tags with no release date, so a window cannot judge them.
  const http = rng.chance(0.07);
  const lines = [
    ...(bad && badWhere === "top"
      ? [`min_release_age = ${bad}`]
      : top
        ? [`min_release_age = "${top.text}"`]
        : []),
    "[tools.k]",
    `version = "${http ? "1" : c.text}"`,
    ...(bad && badWhere === "own"
      ? [`min_release_age = ${bad}`]
      : own
        ? [`min_release_age = "${own.text}"`]
        : []),
    "[tools.k.source]",
    ...(http
      ? ['type = "http"', `repo = "${repo}"`, 'url = "http://127.0.0.1:9/k-{version}-{os}-{arch}.tar.gz"']
      : ['type = "github_release"', `repo = "${repo}"`, 'asset = "k-{version}-{os}-{arch}.tar.gz"']),
    'bin = ["k"]',
    'platforms = ["linux/amd64"]',
    ...(http ? [] : ["[tools.k.source.channels.nightly]", 'asset = "k-nightly-{os}-{arch}.tar.gz"']),
  ];
  const toml = `${lines.join("\n")}\n`;
  const p = await makeProject(host, toml, { now: () => NOW });
  // (An empty TOOLMGR_MIN_RELEASE_AGE is no value: unset.)
  const badEnv = bad && badWhere === "env" && bad !== '""' ? bad.replace(/^"|"$/g, "") : undefined;
  const envVars = badEnv
    ? { TOOLMGR_MIN_RELEASE_AGE: badEnv }
    : env
      ? { TOOLMGR_MIN_RELEASE_AGE: env.text }
      : {};
  const window = (env ?? own ?? top)?.ms ?? 0;
  const problems: string[] = [];
  const say = (what: string, r: { code: number; stdout: string; stderr: string }) =>
    problems.push(`${what}\n    exit ${r.code}\n    stdout ${r.stdout}    stderr ${r.stderr}`);
  const lock = await p.run(["lock"], envVars);
  if (badEnv !== undefined) {
    if (
      lock.code !== 2 ||
      !lock.stderr.startsWith(`toolmgr: Cannot use TOOLMGR_MIN_RELEASE_AGE=${JSON.stringify(badEnv)}: it is `)
    )
      say(`TOOLMGR_MIN_RELEASE_AGE=${badEnv} is not refused naming the variable`, lock);
    return problems;
  }
  if (bad !== undefined && badWhere !== "env") {
    const line = lines.indexOf(`min_release_age = ${bad}`) + 1;
    const key = badWhere === "top" ? "min_release_age" : "\\[tools\\.k\\] min_release_age";
    if (
      lock.code !== 1 ||
      !new RegExp(`^toolmgr: Cannot parse .*toolmgr\\.toml line ${line}: ${key}`).test(lock.stderr)
    )
      say(`a min_release_age of ${bad} is not refused naming the key and line ${line}`, lock);
    return problems;
  }
  if (http) {
    // Refused before any request under a window, saying how to exempt the tool; without one it is not this test's.
    const words =
      /^toolmgr: Cannot resolve "k": its source is of type "http", whose versions are git tags with no release date, .*a \[tools\.k\] table holding version = "1" and min_release_age = "0"\n$/;
    if (
      window > 0 &&
      (lock.code !== 1 || !words.test(lock.stderr) || existsSync(join(p.dir, "toolmgr.lock")))
    )
      say("an http source under a window should be refused", lock);
    return problems;
  }
  const want = model(releases, c, { window });
  const lockPath = join(p.dir, "toolmgr.lock");
  if ("refused" in want) {
    const words =
      want.refused === "young"
        ? /younger than min_release_age/
        : /no published stable release|publishes no|has no tag|no release/;
    if (lock.code !== 1 || !words.test(lock.stderr) || existsSync(lockPath))
      say(`lock should refuse (${want.refused})`, lock);
    // A young refusal names the newest release held back, its date and when it becomes eligible.
    const named = (r: Rel) => [r.version, iso(r.published), eligible(r, window)];
    if (want.refused === "young" && !named(want.newest).every((text) => lock.stderr.includes(text)))
      say(`the refusal does not name ${named(want.newest).join(", ")}`, lock);
    if (want.refused !== "young") return problems;
    // --allow-young lifts the window for the tool: the newest the constraint allows, as without a window.
    const allowed = await p.run(["lock", "--allow-young", "k"], envVars);
    const free = model(releases, c, { window: 0 });
    if ("refused" in free) {
      // Without the window the channel's tag names a build whose release is not out yet: not pinned either way.
      if (allowed.code !== 1 || !/no release "nightly-\w+" is published/.test(allowed.stderr))
        say("lock --allow-young should refuse the unpublished build the channel names", allowed);
    } else if (allowed.code !== 0 || !allowed.stdout.startsWith(`k  locked ${free.version}\n`))
      say(`lock --allow-young should pin ${free.version}`, allowed);
    if (allowed.code !== 0) return problems;
  } else {
    const held = want.held
      ? ` (${want.held.version} held back until ${eligible(want.held, window)} UTC)`
      : "";
    if (lock.code !== 0 || lock.stdout !== `k  locked ${want.version}${held}\nwrote toolmgr.lock\n`)
      say(`lock should pin ${want.version}${held}`, lock);
    if (lock.code !== 0) return problems;
  }
  const pinned = /version = "([^"]+)"/.exec(await readFile(lockPath, "utf8"))?.[1];
  const check = await p.run(["lock", "--check"], envVars);
  const again = model(releases, c, { window, pinned });
  if (check.code !== 0 || !("version" in again) || again.version !== pinned)
    say(`lock --check should find ${pinned} current (model: ${JSON.stringify(again)})`, check);
  else if (
    again.held &&
    !check.stdout.includes(`${again.held.version} held back until ${eligible(again.held, window)} UTC`)
  )
    say(`lock --check should name ${again.held.version} held back`, check);
  const outdated = await p.run(["outdated", "--json"], envVars);
  let row: { wanted?: unknown; latest?: unknown; held_back?: { version?: string } | null } = {};
  try {
    [row] = JSON.parse(outdated.stdout);
  } catch {
    say("outdated --json is not JSON", outdated);
    return problems;
  }
  const latest =
    c.kind === "channel" || c.text.startsWith("nightly-")
      ? releases.filter((r) => r.tag.startsWith("nightly")).at(-1)?.tag
      : stable.filter((r) => !r.draft).sort(newer)[0]?.version;
  const wanted = "version" in again ? again.version : null;
  const heldBack = window === 0 ? undefined : "held" in again && again.held ? again.held.version : null;
  if (
    row.wanted !== wanted ||
    row.latest !== (latest ?? null) ||
    (window === 0 ? "held_back" in row : (row.held_back?.version ?? null) !== heldBack)
  )
    say(`outdated --json should say wanted ${wanted}, latest ${latest}, held back ${heldBack}`, outdated);
  if (rng.chance(0.6))
    problems.push(...(await windowChanged(rng, { p, releases, c, pinned, lockPath, toml })));
  return problems;
}

/**
 * A window set or changed after the lock (TOOLMGR_MIN_RELEASE_AGE for one run): the pin is kept while the window
 * holds it back, and reported; it moves only to a release the window admits; nothing admitted is refused, and a
 * refused or kept lock is left byte for byte. Sometimes the prefix changes too: a pin under another constraint is not
 * this constraint's, and the window decides afresh.
 */
async function windowChanged(
  rng: Random,
  s: {
    p: Awaited<ReturnType<typeof makeProject>>;
    releases: readonly Rel[];
    c: { kind: "prefix" | "exact" | "channel"; text: string };
    pinned: string | undefined;
    lockPath: string;
    toml: string;
  },
): Promise<string[]> {
  const later = windowText(rng);
  const env = { TOOLMGR_MIN_RELEASE_AGE: later.text };
  const c =
    s.c.kind === "prefix" && rng.chance(0.4)
      ? { kind: s.c.kind, text: rng.pick(["1", "2", "1.1", "2.0"]) }
      : s.c;
  if (c !== s.c) await s.p.write(s.toml.replace(`version = "${s.c.text}"`, `version = "${c.text}"`));
  const moved = c.text !== s.c.text;
  const next = model(s.releases, c, { window: later.ms, pinned: moved ? undefined : s.pinned });
  const before = await readFile(s.lockPath, "utf8");
  const check = await s.p.run(["lock", "--check"], env);
  const relock = await s.p.run(["lock"], env);
  const after = await readFile(s.lockPath, "utf8");
  const pin = s.releases.find((r) => r.version === s.pinned);
  const keptYoung = pin !== undefined && later.ms > 0 && pin.published + later.ms > NOW.getTime();
  const verdict =
    "refused" in next
      ? check.code === 1 && relock.code === 1 && after === before
      : moved
        ? check.code === 3 &&
          relock.code === 0 &&
          after.includes(`version = "${next.version}"`) &&
          after.includes(`constraint = "${c.text}"`)
        : next.version === s.pinned
          ? check.code === 0 &&
            relock.code === 0 &&
            after === before &&
            relock.stdout.endsWith("toolmgr.lock is up to date\n") &&
            relock.stdout.includes(`kept although younger than min_release_age ${later.text}`) === keptYoung
          : check.code === 3 &&
            check.stdout.startsWith(`k  ${s.pinned} -> ${next.version}`) &&
            relock.code === 0 &&
            after.includes(`version = "${next.version}"`);
  if (verdict) return [];
  return [
    `with TOOLMGR_MIN_RELEASE_AGE=${later.text}${moved ? ` and version = "${c.text}"` : ""} after pinning ${s.pinned}, the model says ${JSON.stringify(next)}${keptYoung ? " (kept young)" : ""}\n    lock --check: exit ${check.code} ${check.stdout}${check.stderr}    lock: exit ${relock.code} ${relock.stdout}${relock.stderr}`,
  ];
}

test(`the release cooldown decides as its model (seed ${SEED}, ${CASES} cases)`, {
  timeout: 60_000 + CASES * 1_000,
}, async () => {
  const problems: string[] = [];
  for (let i = 0; i < CASES; i++) {
    if (ONLY !== undefined && i !== ONLY) continue;
    problems.push(...(await runCase(i)).map((p) => `case ${i} (FUZZ_SEED=${SEED} FUZZ_CASE=${i}): ${p}`));
  }
  assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 6).join("\n\n")}`);
});
