// Differential fuzzing beside Debian's prometheus-pushgateway 1.5.1: seeded sequences of pushes (text bodies with
// every oddity the format allows or forbids, delimited protobuf, valid and broken), deletes and wrong methods over a few
// colliding grouping keys (@base64 with each padding, repeated and reserved label names, job in the body and the path)
// go to both; each answer (status, message, Content-Type, Location, Allow), then the text and protobuf scrapes and
// /api/v1/metrics after the sequence must agree. Replay or widen a run with FUZZ_SEED and FUZZ_CASES.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import {
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
import { startGateway, stopAll } from "./support/processes.js";
import { sequence } from "./support/push-fuzz-cases.js";
import { comparable, DELIMITED, type Decoded, send as sendRaw } from "./support/scrape-fixtures.js";
import { xorshift32 } from "./support/xorshift.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 2000);

/**
 * Requests where ours answers otherwise on purpose (README "Differences", research §15): they are left out of a
 * sequence, so neither side sees them. Each returns why, or undefined.
 */
const KNOWN: readonly ((step: Step) => string | undefined)[] = [
  // 1.5.1 stores a text gauge histogram's samples without a value and then cannot expose the family; ours refuses
  // them (src/exposition/parse-text.ts), as it does not copy the protobuf case either (input-validation).
  (step) =>
    /#[ \t]*TYPE[ \t]+\S+[ \t]+gauge_histogram/i.test(textOf(step)) ? "gauge histogram in text" : undefined,
  // A delimited body ending inside or right after a length prefix: 1.5.1's pbutil reads it as the end (200), current
  // upstream's protodelim as `unexpected EOF`, which ours follows (README "we follow upstream").
  (step) =>
    Buffer.isBuffer(step.body) &&
    step.headers?.["Content-Encoding"] === undefined &&
    endsAfterLength(step.body)
      ? "protodelim EOF"
      : undefined,
];

/** A text body as sent before any gzip; empty for protobuf. */
function textOf(step: Step): string {
  if (typeof step.body === "string") return step.body;
  if (step.body === undefined || step.headers?.["Content-Encoding"] !== "gzip") return "";
  return gunzipSync(step.body).toString();
}

/** Whether a delimited body ends inside its last varint length prefix, or after one that promises bytes. */
function endsAfterLength(body: Buffer): boolean {
  let at = 0;
  while (at < body.length) {
    let size = 0;
    let shift = 0;
    let byte = 0x80;
    while (byte & 0x80) {
      if (shift > 63) return false;
      if (at >= body.length) return shift > 0;
      byte = body[at++] ?? 0;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (at === body.length) return size > 0;
    at += size;
  }
  return false;
}

function known(step: Step): string | undefined {
  for (const rule of KNOWN) {
    const why = rule(step);
    if (why !== undefined) return why;
  }
  return undefined;
}

/**
 * A decoded family as JSON with the fields whose presence alone differs (README "Scrape formats": ours builds
 * protobuf scrapes from the stored lines) read as Go's getters read them: a missing `type` is COUNTER, a summary's
 * or histogram's missing `sample_count`/`sample_sum` is 0. Keys sorted, so only values and array order count.
 */
function presenceBlind(f: Decoded): string {
  const fill = (key: string, value: unknown): unknown => {
    if ((key === "summary" || key === "histogram") && value !== null && typeof value === "object")
      return { sampleCount: 0, sampleSum: 0, ...value };
    return value;
  };
  const sorted = (_key: string, value: unknown): unknown =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value;
  const filled = JSON.parse(JSON.stringify({ type: "COUNTER", ...f }), (k, v: unknown) =>
    fill(k, v),
  ) as unknown;
  return JSON.stringify(filled, sorted);
}

const compareJson = (a: unknown, b: unknown) => {
  const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

let peer: Side;
let ours: Side;
before(async () => {
  [peer, ours] = await Promise.all([
    startPeerGateway(["--web.enable-admin-api"]),
    startGateway(["--web.enable-admin-api"]),
  ]);
});
after(stopAll);

async function barrier(side: Side): Promise<void> {
  assert.equal((await send(side, { method: "POST", path: BARRIER, body: "" })).status, 200);
}

/**
 * Families whose HELP differs between groups (or is missing in some): which one a scrape prints follows Go map order
 * upstream (research §4), so their HELP lines are dropped from both scrapes.
 */
function mixedHelp(api: string): Set<string> {
  const helps = new Map<string, string[]>();
  for (const group of (JSON.parse(api) as { data: Record<string, unknown>[] }).data)
    for (const [name, fam] of Object.entries(group)) {
      if (name === "labels" || name === "last_push_successful") continue;
      helps.set(name, [...(helps.get(name) ?? []), (fam as { help?: string }).help ?? ""]);
    }
  // The API leaves out an empty help as a missing one (omitempty), which the scrape tells apart: a family held by
  // several groups without a help in the API may be either.
  return new Set(
    [...helps]
      .filter(([, list]) => new Set(list).size > 1 || (list.length > 1 && list.includes("")))
      .map(([name]) => name),
  );
}

const withoutHelp = (exposition: string, names: Set<string>) =>
  exposition
    .split("\n")
    .filter((l) => !(l.startsWith("# HELP ") && names.has(l.slice(7).split(" ")[0] ?? "")))
    .join("\n");

// A deadline for the whole run, so that a side that stops answering fails the file instead of hanging it.
test(`${CASES} seeded push sequences answer and expose as 1.5.1 (seed ${SEED})`, {
  timeout: 50 * CASES + 60_000,
}, async () => {
  const rand = xorshift32(SEED);
  const failures: string[] = [];
  let sent = 0;
  for (let n = 0; n < CASES && failures.length < 10; n++) {
    const steps = sequence(rand).filter((s) => known(s) === undefined);
    const where = (what: string) => `case ${n}: ${what}\n  ${steps.map(showStep).join("\n  ")}`;
    for (const side of [peer, ours]) {
      assert.equal((await send(side, { method: "PUT", path: "/api/v1/admin/wipe" })).status, 202);
      await barrier(side);
    }
    let same = true;
    // 1.5.1 keeps a group refused beside its twin (instance="" given or left out) and then fails every scrape and
    // push for their duplicate push-time series; ours refuses it the same way but does not keep it.
    let bricked = false;
    for (const [i, step] of steps.entries()) {
      const [p, o] = [await send(peer, step), await send(ours, step)];
      sent++;
      const diffs: string[] = (["status", "contentType", "location", "allow"] as const).filter(
        (k) => p[k] !== o[k],
      );
      // Which family of a suffix collision Go skips, and which group's type a clash across groups keeps (so whose
      // series fail `is not a`, and whose other errors are listed), follow Go's map order.
      const mapOrder = [" collides with ", "} is not a "].some(
        (t) => p.body.includes(t) && o.body.includes(t),
      );
      if (normalizeBody(p.body) !== normalizeBody(o.body) && !mapOrder) diffs.push("body");
      if (diffs.length > 0) {
        failures.push(
          where(
            `step ${i} differs in ${diffs.join(", ")}: 1.5.1 ${p.status} ${JSON.stringify(p.body)}, ours ${o.status} ${JSON.stringify(o.body)}`,
          ),
        );
        same = false;
        break;
      }
      if (/collected metric "push_(failure_)?time_seconds" \{/.test(p.body)) {
        bricked = true;
        break;
      }
    }
    if (!same || bricked) continue;
    await Promise.all([barrier(peer), barrier(ours)]);
    const [pa, oa] = [
      await send(peer, { method: "GET", path: "/api/v1/metrics" }),
      await send(ours, { method: "GET", path: "/api/v1/metrics" }),
    ];
    const [pm, om] = [
      await send(peer, { method: "GET", path: "/metrics" }),
      await send(ours, { method: "GET", path: "/metrics" }),
    ];
    if (pm.status !== om.status) {
      failures.push(where(`scrape status 1.5.1 ${pm.status}, ours ${om.status}: ${om.body}`));
      continue;
    }
    if (pa.status !== 200 || oa.status !== 200) {
      failures.push(where(`/api/v1/metrics 1.5.1 ${pa.status} ${pa.body}, ours ${oa.status} ${oa.body}`));
      continue;
    }
    const mixed = mixedHelp(pa.body);
    const [pe, oe] = [
      normalizeExposition(withoutHelp(pm.body, mixed)),
      normalizeExposition(withoutHelp(om.body, mixed)),
    ];
    // Series with the same label count and values (names differ) are left in gather order by client_golang's sort:
    // push order in one group, Go's map order across groups. Such ties are compared as sets.
    if (pe !== oe && sortedInBlocks(pe) !== sortedInBlocks(oe)) {
      failures.push(where(`scrape differs:\n--- 1.5.1\n${pe}\n--- ours\n${oe}`));
      continue;
    }
    // The same state in the delimited protobuf exposition: decoded, own families dropped, push times masked.
    const [pp, op] = await Promise.all(
      [peer, ours].map((side) => sendRaw(side, "GET", "/metrics", { Accept: DELIMITED })),
    );
    // Series tied in client_golang's sort (the text scrapes matched only as sets) are compared as sets here too.
    const tied = pe !== oe;
    const protoView = (body: Buffer) =>
      comparable(body).map((f) => {
        const view = { ...f, ...(mixed.has(f.name) ? { help: undefined } : {}) };
        if (tied && view.metric !== undefined)
          view.metric = [...view.metric].sort((a, b) => compareJson(a, b));
        return presenceBlind(view);
      });
    const [pv, ov] = [protoView(pp?.body ?? Buffer.alloc(0)), protoView(op?.body ?? Buffer.alloc(0))];
    const at = pv.findIndex((f, i) => f !== ov[i]);
    if (at !== -1 || pv.length !== ov.length) {
      failures.push(
        where(
          `protobuf scrape differs:\n--- 1.5.1\n${pv[at] ?? pv.length}\n--- ours\n${ov[at] ?? ov.length}`,
        ),
      );
      continue;
    }
    // A pushed -0 is kept as 0 by ours (stored as its exposition line), where 1.5.1's API prints -0.
    const api = (body: string) => normalizeApi(body.replaceAll('"-0"', '"0"'));
    if (api(pa.body) !== api(oa.body))
      failures.push(
        where(
          `/api/v1/metrics differs:\n--- 1.5.1\n${normalizeApi(pa.body)}\n--- ours\n${normalizeApi(oa.body)}`,
        ),
      );
  }
  assert.deepEqual(failures, []);
  assert.ok(sent > CASES, `${sent} requests sent`);
});
