import type { FuzzArtifact } from "./fuzz-archive.js";
import type { Fault, HostPlan } from "./fuzz-host.js";
import type { Random } from "./fuzz-random.js";

// The fuzzed code host's plan for one case (test/cli-fuzz.test.ts): which tags and releases `acme/fz` has, what its
// assets' digests, download URLs and publication dates look like, and which endpoint answers wrongly, how.

/** A host with nothing: what the host answers before the first case. */
export function emptyPlan(): HostPlan {
  return {
    tags: [],
    nightlyCommit: "0".repeat(40),
    private: false,
    artifact: Buffer.alloc(0),
    digest: "host",
    downloadAt: "api",
    publishedAt: undefined,
    faults: new Map(),
  };
}

const ODD_TAGS = [
  "v1.2.3.4",
  "v01.2.3",
  "v1.2",
  "v1",
  "v1.2.3rc1",
  "v1.20.0",
  "v",
  "1.2.3",
  "v1.2.3-",
  "v1.2.3/x",
];
const ODD_TAGS_2 = [
  "v../../x",
  "v1.2.3 ",
  `v${"9".repeat(30)}.0.0`,
  "constructor",
  "v__proto__",
  "nightly-zzz",
];

function fault(rng: Random, endpoint: string, otherUrl: string): Fault {
  const options: (() => Fault)[] = [
    () => ({ kind: "status", status: rng.pick([404, 410, 451, 401, 422]), times: 99 }),
    () => ({ kind: "status", status: rng.pick([500, 502, 503]), times: 1 }),
    () => ({ kind: "rate-limit" }),
    () => ({ kind: "redirect", to: rng.pick(["other", "other", "plain-http", "self"] as const) }),
    () => ({
      kind: "body",
      body: rng.pick(["<html>", "null", "[]", "{}", '"str"', "1e999", '{"assets": ', ""]),
    }),
    () => ({ kind: "body", body: `${"[".repeat(20000)}${"]".repeat(20000)}` }),
  ];
  if (rng.chance(0.05)) options.push(() => ({ kind: "status", status: 500, times: 99 }));
  if (rng.chance(0.05)) options.push(() => ({ kind: "redirect", to: "bad-location" }));
  // Each drawn once, at the first answer that needs it: within a case the host answers alike every time (`lock --check`
  // after `lock` saw another asset URL, and rightly refused it, seed 424242 case 614).
  const once = <T>(pick: () => T): (() => T) => {
    let drawn: { value: T } | undefined;
    return () => {
      drawn ??= { value: pick() };
      return drawn.value;
    };
  };
  const oddName = once(() =>
    rng.pick(["../../etc/passwd", "constructor", "__proto__", "a\nb", "", "x".repeat(5000)]),
  );
  const oddUrl = once(() =>
    rng.pick<unknown>([
      5,
      "",
      "javascript:x",
      "file:///etc/passwd",
      "http://[::1",
      "https://user:pw@127.0.0.1:1/x",
    ]),
  );
  const oddDigest = once(() =>
    rng.pick<unknown>([5, "sha256:", "md5:abc", `SHA256:${"a".repeat(64)}`, `sha256:${"g".repeat(64)}`]),
  );
  const mutations: Record<string, ((good: unknown) => unknown)[]> = {
    release: [
      (g) => ({ ...(g as object), tag_name: 5 }),
      (g) => ({ ...(g as object), assets: "x" }),
      (g) => ({
        ...(g as object),
        assets: [null, 1, "x", { name: 5 }, { name: "fz", browser_download_url: 5 }],
      }),
      (g) => ({ ...(g as object), draft: true }),
      (g) => ({ ...(g as object), prerelease: "yes" }),
      (g) => {
        const r = g as { assets: Record<string, unknown>[] };
        return { ...r, assets: [...r.assets, ...r.assets] };
      },
      (g) => {
        const r = g as { assets: Record<string, unknown>[] };
        const odd = oddName();
        return { ...r, assets: r.assets.map((a) => ({ ...a, name: odd })) };
      },
      (g) => {
        const r = g as { assets: Record<string, unknown>[] };
        const url = oddUrl();
        return { ...r, assets: r.assets.map((a) => ({ ...a, browser_download_url: url })) };
      },
      (g) => {
        const r = g as { assets: Record<string, unknown>[] };
        return {
          ...r,
          assets: r.assets.map((a) => ({ ...a, url: `${otherUrl}/repos/acme/fz/releases/assets/1` })),
        };
      },
      (g) => {
        const r = g as { assets: Record<string, unknown>[] };
        const digest = oddDigest();
        return { ...r, assets: r.assets.map((a) => ({ ...a, digest })) };
      },
    ],
    tags: [
      () => [null, { ref: 5 }, { ref: "refs/heads/x" }, { ref: "refs/tags/v1.2.3", object: null }],
      () => [{ ref: "refs/tags/v1.2.3", object: { sha: "zz", type: "tag" } }],
      () => [{ ref: "refs/tags/v1.2.3", object: { sha: "a".repeat(40), type: "tag" } }],
      () => ({ list: [] }),
      () =>
        Array.from({ length: 3000 }, (_, i) => ({
          ref: `refs/tags/v1.2.${i}`,
          object: { sha: "b".repeat(40), type: "commit" },
        })),
    ],
    commit: [
      () => ({ sha: 5 }),
      () => ({ sha: "abc" }),
      () => ({}),
      () => null,
      () => "x".repeat(40),
      () => ({ sha: "c".repeat(64) }),
    ],
    repo: [() => null, () => [], () => ({ private: "yes" }), () => ({ private: true }), () => "x"],
  };
  const mutate = mutations[endpoint];
  if (mutate !== undefined) options.push(() => ({ kind: "mutate", mutate: rng.pick(mutate) }));
  return rng.pick(options)();
}

/** One case's code host: good releases of `acme/fz`, sometimes odd tags, and a fault at one endpoint. */
export function hostPlan(
  rng: Random,
  artifact: FuzzArtifact,
  options: { commit: string; otherUrl: string },
): HostPlan {
  const { commit } = options;
  const tags = ["v1.0.0", "v1.2.0", "v1.2.3", "v1.2.3-rc.1", "v2.0.0"];
  if (rng.chance(0.25)) tags.push(rng.pick(ODD_TAGS), rng.pick(ODD_TAGS_2));
  const faults = new Map<string, Fault>();
  if (rng.chance(0.35)) {
    const endpoint = rng.pick(["repo", "tags", "release", "release", "commit", "download", "download"]);
    faults.set(endpoint, fault(rng, endpoint, options.otherUrl));
  }
  return {
    tags,
    nightlyCommit: commit,
    private: rng.chance(0.2),
    artifact: artifact.data,
    digest: rng.chance(0.6) ? "host" : rng.pick(["none", "none", "wrong", "upper", "garbage"]),
    downloadAt: rng.chance(0.7) ? "api" : rng.pick(["other", "other", "plain-http", "relative"]),
    publishedAt: rng.chance(0.7)
      ? "2026-01-01T00:00:00Z"
      : rng.pick<unknown>([
          "2026-11-22T23:00:00Z",
          undefined,
          null,
          "",
          "2026-02-30T00:00:00Z",
          "not a date",
          12345,
          "0000-01-01T00:00:00Z",
          "+275760-09-13T00:00:00.000Z",
          "9999-12-31T23:59:59Z",
          "2026-01-01T00:00:00",
          {},
        ]),
    faults,
  };
}
