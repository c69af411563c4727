// Differential fuzzing of the HTTP surface around the push path beside Debian's prometheus-pushgateway 1.5.1:
// (i) seeded requests of every method to the push API's URL grammar (plain, `@base64` with and without padding, broken
// escapes, raw bytes, reserved and invalid label names, `job` twice, long values, odd slashes) and to the other routes,
// at the root, under a route prefix with the admin API and behind an external URL with the lifecycle API: each answer
// (status, Content-Type, Location, Allow, body) and, every few requests, the scrape and /api/v1/metrics must agree;
// (ii) seeded `--web.config.file`s (users with bcrypt hashes made by python3-bcrypt, headers, http2, TLS with the
// package's test certificate, unknown keys, duplicates, wrong types) and requests with right, wrong, missing and
// malformed `Authorization` headers: whether each side starts, the error it stops with, and each answer's status,
// `WWW-Authenticate` and configured headers must agree. Replay or widen a run with FUZZ_SEED, FUZZ_CASES (requests per
// flag set) and FUZZ_CONFIGS.
import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { METHODS } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { cleanPath } from "@local/go-compat/clean-path";
import { bcryptHashes } from "./support/bcrypt-hashes.js";
import { authHeader, damagedHash, surfaceStep, type Variant, webCase } from "./support/http-surface-cases.js";
import {
  type Answer,
  BARRIER,
  normalizeApi,
  normalizeBody,
  normalizeExposition,
  type Side,
  type Step,
  send,
  showStep,
  sortedInBlocks,
} from "./support/peer-compare.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { authed, deadline, type Outcome, startWith } from "./support/web-config-side.js";
import { xorshift32 } from "./support/xorshift.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 300);
const CONFIGS = Number(process.env.FUZZ_CONFIGS ?? 24);
const CERTS = fileURLToPath(new URL("../../test/fixtures/web-config", import.meta.url));

let dir = "";
after(async () => {
  await stopAll();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

/**
 * One request with a deadline. An answer node's client cannot read (Go's raw 400 for a URL that does not parse carries
 * its text even to a HEAD) is an answer too: its parser's error.
 */
const ask = (side: Side, step: Step) =>
  deadline(
    send(side, step).catch((e: Error & { code?: string }) => {
      if (!e.code?.startsWith("HPE_")) throw e;
      return { status: -1, body: `${e.code}`, contentType: null, location: null, allow: null };
    }),
    10_000,
    showStep(step),
  ).catch((e: Error) => {
    throw new Error(`${side.base}: ${e.message}: ${showStep(step)}`, { cause: e });
  });

/** The methods node's HTTP parser (llhttp) reads; any other is refused with 400 before a handler runs. */
const NODE_METHODS = new Set(METHODS);

/**
 * Requests ours answers otherwise on purpose, left out of a sequence (README "Differences"): a request target with
 * raw bytes outside ASCII, which node's parser refuses with 400 (RFC 3986 has no such bytes; clients encode them) and
 * 1.5.1 takes as they are; a method node's parser does not know (`FOO`), refused alike where Go routes it; a PUT, POST or DELETE whose `job@base64` does not decode, which leaves 1.5.1's route
 * mutex locked (every later request there hangs; upstream 5ad8650).
 */
function known(step: Step, prefix: string): string | undefined {
  if (/[^\x21-\x7e]/.test(step.path)) return "raw bytes in the request target";
  if (!NODE_METHODS.has(step.method)) return "a method node's parser does not know";
  if (step.method !== "PUT" && step.method !== "POST" && step.method !== "DELETE") return undefined;
  // Go's server refuses only a malformed escape; bytes that are not UTF-8 (`%E2%82`) reach the handler.
  const raw = step.path.replace(/\?.*$/, "");
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return undefined;
  const path = raw.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  if (cleanPath(path) !== path || !path.startsWith(`${prefix}/metrics/job@base64/`)) return undefined;
  const job = (path.slice(prefix.length).split("/")[3] ?? "").replace(/=+$/, "").replace(/[\r\n]/g, "");
  return /^[A-Za-z0-9_-]*$/.test(job) && job.length % 4 !== 1 ? undefined : "undecodable job@base64";
}

const SCRAPE_TYPE = /^text\/plain; version=0\.0\.4; charset=utf-8(; escaping=underscores)?$/;

/**
 * A peer bug not copied: httprouter 1.3's case-insensitive lookup (tree.go findCaseInsensitivePathRec) keeps a stale
 * rune buffer past the wildcards of the `job@base64` branch, so a path there with labels and a letter case off
 * (`/Metrics/job@base64/x/a/b`) is 404 in 1.5.1 and in a plain httprouter; ours redirects it as both redirect the
 * same path without `@base64`.
 */
function staleCaseLookup(p: Answer, o: Answer): boolean {
  return (
    p.status === 404 &&
    (o.status === 307 || o.status === 301) &&
    /\/metrics\/job@base64\/[^/]+\//.test(o.location ?? "")
  );
}

/**
 * Grouping labels that are not UTF-8: ours refuses the push before the store is consulted (README "Label values must
 * be valid UTF-8"), naming every series of the group; 1.5.1's Gather meets the other groups too, and where a type clash
 * comes first in its map order names a pushed series `is not a` instead, or adds the other groups' series. Each series
 * 1.5.1 names not UTF-8 ours must name, and each ours names more must be of a family 1.5.1 names in a clash.
 */
function sameNotUtf8(p: string, o: string): boolean {
  const lines = (body: string) => normalizeBody(body).split("\n");
  const notUtf8 = (body: string) => new Set(lines(body).filter((l) => l.includes("whose value is not utf8")));
  const [pn, on] = [notUtf8(p), notUtf8(o)];
  const clashed = new Set(
    lines(p)
      .filter((l) => l.includes("} is not a "))
      .map((l) => /collected metric ("[^"]*")/.exec(l)?.[1]),
  );
  return (
    on.size > 0 &&
    [...pn].every((l) => on.has(l)) &&
    [...on].every((l) => pn.has(l) || clashed.has(/collected metric ("[^"]*")/.exec(l)?.[1]))
  );
}

/** What differs between two answers to the same request, or undefined. */
function difference(p: Answer, o: Answer): string | undefined {
  if (staleCaseLookup(p, o)) return undefined;
  const diffs: string[] = (["status", "location", "allow"] as const).filter((k) => p[k] !== o[k]);
  // Scrapes: upstream's Content-Type ends in `; escaping=underscores` (README "we follow upstream").
  const scrape =
    p.status === 200 && SCRAPE_TYPE.test(p.contentType ?? "") && SCRAPE_TYPE.test(o.contentType ?? "");
  if (!scrape && p.contentType !== o.contentType) diffs.push("contentType");
  if (p.status === 200 && scrape) {
    if (sortedInBlocks(normalizeExposition(p.body)) !== sortedInBlocks(normalizeExposition(o.body)))
      diffs.push("scrape");
  } else if (p.status === 200 && (p.contentType ?? "").startsWith("text/html")) {
    // The web UI: a page of our own (README "Web UI").
  } else if (p.status === 200 && p.body.startsWith('{"status":"success","data":{')) {
    // /api/v1/status: build and runtime differ; the flags this suite varies must not.
    const flags = (b: string) => {
      const f = (JSON.parse(b) as { data: { flags: Record<string, string> } }).data.flags;
      return ["web.route-prefix", "web.external-url", "web.enable-admin-api", "web.enable-lifecycle"].map(
        (k) => f[k],
      );
    };
    if (JSON.stringify(flags(p.body)) !== JSON.stringify(flags(o.body))) diffs.push("status flags");
  } else if (p.status === 200 && p.body.startsWith('{"status":"success","data":[')) {
    if (normalizeApi(p.body) !== normalizeApi(o.body)) diffs.push("api");
  } else if (normalizeBody(p.body) !== normalizeBody(o.body)) {
    // Which group's type a clash keeps, and which family of a collision is named, follow Go's map order.
    const mapOrder = [" collides with ", "} is not a "].some((t) => p.body.includes(t) && o.body.includes(t));
    if (!mapOrder && !sameNotUtf8(p.body, o.body)) diffs.push("body");
  }
  if (diffs.length === 0) return undefined;
  const show = (a: typeof p) =>
    `${a.status} ${a.contentType} ${a.location ?? ""} ${a.allow ?? ""} ${JSON.stringify(a.body.slice(0, 2000))}`;
  return `${diffs.join(", ")}: 1.5.1 ${show(p)}, ours ${show(o)}`;
}

/** The flag sets of part (i); the prefix forms drawn from the seed (main.go computeRoutePrefix). */
function variants(r: () => number): Variant[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(r() * items.length)] as T;
  return [
    { args: [], prefix: "", lifecycle: false },
    {
      args: [
        "--web.enable-admin-api",
        pick(["--web.route-prefix=/pfx", "--web.route-prefix=pfx/", "--web.route-prefix=/pfx/"]),
      ],
      prefix: "/pfx",
      lifecycle: false,
    },
    {
      args: [
        "--web.enable-lifecycle",
        "--web.enable-admin-api",
        pick([
          "--web.external-url=http://gw.example:9091/ext/",
          "--web.external-url=/ext",
          "--web.external-url=https://gw.example/ext",
        ]),
      ],
      prefix: "/ext",
      lifecycle: true,
    },
    // Unchecked pushes (202, timestamps dropped) and the scrape elsewhere.
    {
      args: ["--push.disable-consistency-check", "--web.telemetry-path=/prom/"],
      prefix: "",
      lifecycle: false,
      telemetryPath: "/prom",
    },
  ];
}

/** Resolves with the exit code once `child` has exited, or rejects after `ms`. */
function exited(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return deadline(
    new Promise((resolve) => child.once("exit", (code) => resolve(code))),
    ms,
    "the gateway to exit after /-/quit",
  );
}

test(`the push API's URL grammar and the other routes answer as 1.5.1's (seed ${SEED}, ${CASES} requests per flag set)`, {
  timeout: 120 * CASES + 60_000,
}, async () => {
  const rand = xorshift32(SEED);
  const failures: string[] = [];
  let compared = 0;
  for (const variant of variants(rand)) {
    const [peer, ours] = await Promise.all([
      startPeerGateway([...variant.args]),
      startGateway([...variant.args]),
    ]);
    const where = (n: number, what: string, steps: readonly Step[]) =>
      `${variant.args.join(" ") || "(no flags)"}, request ${n}: ${what}\n  ${steps.map(showStep).join("\n  ")}`;
    const barrier = { method: "POST", path: `${variant.prefix}${BARRIER}`, body: "" };
    const recent: Step[] = [];
    const state = async (n: number): Promise<boolean> => {
      for (const side of [peer, ours]) {
        const b = await ask(side, barrier);
        if (b.status !== 200 && b.status !== 202) {
          failures.push(where(n, `barrier push answered ${b.status} ${b.body}`, recent));
          return false;
        }
      }
      for (const path of [variant.telemetryPath ?? "/metrics", "/api/v1/metrics"]) {
        const get = { method: "GET", path: `${variant.prefix}${path}` };
        const diff = difference(await ask(peer, get), await ask(ours, get));
        if (diff !== undefined) {
          failures.push(where(n, `${path} after the requests differs in ${diff}`, recent));
          return false;
        }
      }
      recent.length = 0;
      return true;
    };
    for (let n = 0; n < CASES && failures.length < 10; n++) {
      const step = surfaceStep(rand, variant);
      if (known(step, variant.prefix) !== undefined) continue;
      recent.push(step);
      compared++;
      // A scrape sees every write before it: 1.5.1 applies deletes after answering them.
      if (step.method === "GET") for (const side of [peer, ours]) await ask(side, barrier);
      const [p, o] = [await ask(peer, step), await ask(ours, step)];
      // Unchecked, 1.5.1 takes a push to grouping labels that are not UTF-8 (202) and then fails every scrape; ours
      // refuses it as when checked (README "Label values must be valid UTF-8").
      const uncheckedNotUtf8 =
        p.status === 202 && o.status === 400 && o.body.includes("whose value is not utf8");
      const diff = uncheckedNotUtf8 ? undefined : difference(p, o);
      if (diff !== undefined) {
        failures.push(where(n, `answers differ in ${diff}`, recent));
        break;
      }
      // 1.5.1 keeps a group its consistency check refused for its push-time series (a twin of an existing group, or
      // grouping labels that are not UTF-8) and then fails every scrape; ours refuses it alike but keeps nothing
      // (README "Deliberate differences"). Deleting it on both makes them equal again.
      // A push refused for its timestamps creates its group in 1.5.1, also one whose labels are not UTF-8.
      if (
        uncheckedNotUtf8 ||
        /collected metric "push_(failure_)?time_seconds"|must not have timestamps/.test(p.body)
      )
        for (const side of [peer, ours]) await ask(side, { method: "DELETE", path: step.path });
      if ((n + 1) % 25 === 0 && !(await state(n))) break;
    }
    if (failures.length === 0) await state(CASES);
    if (variant.lifecycle) {
      // The lifecycle API last: both answer the quit and exit.
      const quit = { method: "PUT", path: `${variant.prefix}/-/quit` };
      const diff = difference(await ask(peer, quit), await ask(ours, quit));
      if (diff !== undefined) failures.push(`/-/quit differs in ${diff}`);
      const codes = await Promise.all([exited(peer.child, 10_000), exited(ours.child, 10_000)]);
      assert.deepEqual(codes, [0, 0], "both exit 0 after /-/quit");
    } else await Promise.all([stop(peer.child), stop(ours.child)]);
  }
  assert.deepEqual(failures, []);
  // Most requests are compared, not skipped as a known difference.
  assert.ok(compared > 2 * CASES, `${compared} requests compared`);
});

const PATHS = ["/-/healthy", "/metrics/job/auth", "/api/v1/status", "/nope", "/metrics", "/-/ready"];

test(`${CONFIGS} seeded web configs start or refuse, and answer credentials, as 1.5.1 (seed ${SEED})`, {
  timeout: 3000 * CONFIGS + 60_000,
}, async () => {
  const rand = xorshift32(SEED ^ 0x5eed);
  dir = await mkdtemp(join(tmpdir(), "pg-surface-fuzz-"));
  const cases = Array.from({ length: CONFIGS }, () => webCase(rand, CERTS));
  const hashes = await bcryptHashes(cases.flatMap((c) => c.users));
  let next = 0;
  const failures: string[] = [];
  // What the run met, so it is seen to exercise each side: configs refused, requests refused and let through.
  const seen = { refused: 0, unauthorized: 0, through: 0 };
  for (const [i, c] of cases.entries()) {
    const own = c.users.map((u) => damagedHash(hashes[next++] ?? "", u.damage));
    const yaml = c.yaml.replace(/\{\{hash:(\d+)\}\}/g, (_, n: string) => own[Number(n)] ?? "");
    const config = join(dir, `web-${i}.yml`);
    await writeFile(config, yaml);
    const where = (what: string) => `config ${i}: ${what}\n${yaml}`;
    const [p, o] = await Promise.all([startWith(true, config), startWith(false, config)]);
    try {
      if (!p.served || !o.served) {
        const show = (x: Outcome) => (x.served ? "serves" : `refuses: ${x.error}`);
        // exporter-toolkit checks the headers in Go's map order: with two bad ones, either may be named.
        const headers = /^(HTTP header ".*" can not be configured|invalid value for [\s\S]*)$/;
        const sameError =
          !p.served && !o.served && (p.error === o.error || (headers.test(p.error) && headers.test(o.error)));
        if (p.served !== o.served || (!p.served && !sameError))
          failures.push(where(`1.5.1 ${show(p)}\nours ${show(o)}`));
        seen.refused++;
        continue;
      }
      if (new URL(p.base).protocol !== new URL(o.base).protocol) {
        failures.push(where(`1.5.1 serves ${p.base}, ours ${o.base}`));
        continue;
      }
      for (let n = 0; n < 6; n++) {
        const step = {
          method: rand() < 0.3 ? "PUT" : "GET",
          path: PATHS[Math.floor(rand() * PATHS.length)] ?? "/",
          auth: authHeader(rand, c.users),
        };
        const path = step.method === "PUT" ? "/metrics/job/auth" : step.path;
        const [pa, oa] = [await authed(p.base, { ...step, path }), await authed(o.base, { ...step, path })];
        // README "Web configuration": credentials that are not UTF-8 cannot be checked by bcryptjs and are refused.
        const known = pa.status !== 401 && oa.status === 401 && notUtf8Credentials(step.auth);
        if (pa.status === 401) seen.unauthorized++;
        else if (c.users.length > 0 && step.auth !== undefined) seen.through++;
        if (pa.text !== oa.text && !known)
          failures.push(
            where(
              `${step.method} ${path} ${JSON.stringify(step.auth)}:\n--- 1.5.1\n${pa.text}\n--- ours\n${oa.text}`,
            ),
          );
      }
    } finally {
      await Promise.all([p, o].map((x) => (x.served ? stop(x.child) : undefined)));
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(seen.refused > 0 && seen.unauthorized > 0 && seen.through > 0, JSON.stringify(seen));
});

/** Whether an `Authorization` header carries basic credentials that are not UTF-8. */
function notUtf8Credentials(auth: string | undefined): boolean {
  const m = /^basic (.*)$/i.exec(auth ?? "");
  return m !== null && !isUtf8(Buffer.from(m[1] ?? "", "base64"));
}
