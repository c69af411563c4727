// Seeded property fuzzing of the opt-in features no peer has (README "Beyond upstream" and "Streamed output, jobs
// and a queue"), through the built server over HTTP: `standard-webhooks` and `stripe-signature` signatures (right,
// wrong at the first or last byte, other lengths, bad base64, several, odd whitespace, timestamps at the tolerance
// edges and malformed), `-trusted-proxies` chains (`X-Forwarded-For`, RFC 7239 `Forwarded`, IPv6, garbage) beside a
// server without the flag, `deduplicate-by` deliveries sent at once, `queue` limits, the jobs API with odd ids and
// methods, streamed output whose client leaves mid-stream, and the `-metrics` label set. Every command appends one
// line to a file, so the properties are checked on effects: a request that does not satisfy its rules runs nothing,
// every answer is a documented status and body, a wrong signature gives one answer however it is wrong, nothing of a
// request reaches another hook, the log holds no stack trace, and the servers answer to the end.
// FUZZ_SEED=<n> FUZZ_CASES=<n> widen a run by hand.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type HooksServer, removeDir, startHooksServer, tempDir, waitFor } from "./support/hooks-server.js";
import { Rng } from "./support/parity-fuzz-cases.js";
import { type RawResponse, rawRequest } from "./support/raw-http.js";
import { ServerGroup } from "./support/server-group.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 400);
const SW_KEY = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const SW_SECRET = `whsec_${SW_KEY.toString("base64")}`;
const STRIPE_SECRET = "whsec_stripe_fuzz_secret";
const TOLERANCE = 60;
const NOT_SATISFIED = "Hook rules were not satisfied.";
const RULE_ERROR = "Error occurred while evaluating hook rules.";
const HOOK_IDS = ["sw", "stripe", "who", "ip", "dedup-a", "dedup-b", "serial", "stream"];

const group = new ServerGroup();
let dir: string;
let proxied: HooksServer;
let direct: HooksServer;

/** `/bin/sh -c 'echo <hook> "$1" >> runs; <then>'` with `$1` from `arg`. */
function recorded(id: string, arg: Record<string, unknown>, then = ""): Record<string, unknown> {
  return {
    id,
    "execute-command": "/bin/sh",
    "pass-arguments-to-command": [
      { source: "string", name: "-c" },
      { source: "string", name: `echo ${id} "$1" >> ${join(dir, "runs")}; ${then}` },
      { source: "string", name: "sh" },
      arg,
    ],
  };
}

const marker = { source: "url", name: "m" };

function hooks(): Record<string, unknown>[] {
  const awaited = { "include-command-output-in-response": true };
  return [
    {
      ...recorded("sw", marker, "echo ok"),
      ...awaited,
      "trigger-rule": {
        match: { type: "standard-webhooks", secret: SW_SECRET, "tolerance-seconds": TOLERANCE },
      },
    },
    {
      ...recorded("stripe", marker, "echo ok"),
      ...awaited,
      "trigger-rule": {
        match: { type: "stripe-signature", secret: STRIPE_SECRET, "tolerance-seconds": TOLERANCE },
      },
    },
    { ...recorded("who", marker, `echo "$2"`), ...awaited, "pass-arguments-to-command": whoArgs() },
    {
      ...recorded("ip", marker, "echo ok"),
      ...awaited,
      "trigger-rule": { match: { type: "ip-whitelist", "ip-range": "203.0.113.0/24 2001:db8::/32" } },
    },
    ...["dedup-a", "dedup-b"].map((id) => ({
      ...recorded(id, marker),
      "response-message": `${id} accepted`,
      "deduplicate-by": "X-Delivery",
      "trigger-rule": {
        match: { type: "value", value: "ok", parameter: { source: "header", name: "X-Token" } },
      },
    })),
    {
      ...recorded("serial", marker, "sleep 0.2"),
      "maximum-concurrent-executions": 1,
      queue: 2,
    },
    {
      ...recorded(
        "stream",
        marker,
        `for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 0.05; done; echo end "$1" >> ${join(dir, "runs")}`,
      ),
      "stream-command-output": true,
      "kill-grace-seconds": 1,
      "maximum-concurrent-executions": 1,
      queue: 2,
    },
  ];
}

function whoArgs(): unknown[] {
  const base = recorded("who", marker, `echo "$2"`)["pass-arguments-to-command"] as unknown[];
  return [...base, { source: "request", name: "remote-addr" }];
}

before(async () => {
  dir = await tempDir("webhook-extensions-fuzz-");
  const common = ["-metrics", "-jobs-dir", join(dir, "jobs")];
  proxied = await startHooksServer(group, {
    dir,
    hooks: hooks(),
    flags: [...common, "-trusted-proxies", "127.0.0.1,10.0.0.0/8,2001:db8:ffff::/48"],
  });
  direct = await startHooksServer(group, { dir, flags: ["-metrics", "-jobs-dir", join(dir, "jobs-direct")] });
});

after(async () => {
  await group.stopAll();
  await removeDir(dir);
});

async function runs(): Promise<string[]> {
  const text = await readFile(join(dir, "runs"), "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

/** The lines of `runs` naming `m` (each case has its own marker). */
async function runsOf(m: string): Promise<string[]> {
  return (await runs()).filter((l) => l.endsWith(` ${m}`));
}

const text = (r: RawResponse) => r.body.toString("utf8").trim();
const headerOf = (r: RawResponse, name: string) =>
  r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** Sends with a marker in the query; the answer must be a well-formed one (rawRequest parses it, 20 s deadline). */
function send(
  server: HooksServer,
  id: string,
  m: string,
  options: { method?: string; headers?: [string, string][]; body?: string } = {},
): Promise<RawResponse> {
  return rawRequest(server.port, {
    method: options.method ?? "POST",
    path: `/hooks/${id}?m=${m}`,
    headers: options.headers ?? [],
    ...(options.body === undefined ? {} : { body: options.body }),
  });
}

const BODIES = ['{"a":1}', "", "plain text", '{"ü":"😀"}', "x".repeat(3000), "a\r\nb", '{"constructor":{}}'];
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A header name in a random case (header names are case-insensitive). */
function anyCase(rng: Rng, name: string): string {
  return [...name].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join("");
}

/** A wrong variant of a signature text, or the text itself ("right"). */
function variant(rng: Rng, right: string, alphabet: string): { text: string; right: boolean } {
  const flip = (at: number) => {
    const c = right[at] as string;
    const other = alphabet[(alphabet.indexOf(c) + 1 + rng.int(alphabet.length - 1)) % alphabet.length];
    return `${right.slice(0, at)}${other}${right.slice(at + 1)}`;
  };
  switch (rng.int(8)) {
    case 0:
      return { text: flip(0), right: false };
    case 1:
      return { text: flip(right.length - 1), right: false };
    case 2:
      return { text: right.slice(0, -1 - rng.int(4)), right: false };
    case 3:
      return { text: `${right}${rng.pick(["A", "==", "00"])}`, right: false };
    case 4:
      return { text: rng.pick(["!!!", "", "%%%%", "ü".repeat(22), right.toUpperCase()]), right: false };
    default:
      return { text: right, right: true };
  }
}

/** A timestamp around now: on or just past the tolerance either way, or malformed. */
function timestamp(rng: Rng, now: number): { text: string; offset?: number } {
  if (rng.chance(0.15))
    return { text: rng.pick(["", "abc", "1e9", "+1", "-1", "0x10", "9".repeat(16), `${now}.5`, "٣"]) };
  const offset = rng.pick([
    0,
    1,
    -1,
    TOLERANCE,
    -TOLERANCE,
    -TOLERANCE,
    TOLERANCE + 1,
    -TOLERANCE - 1,
    3 * TOLERANCE,
  ]);
  return { text: String(now + offset), offset };
}

/**
 * What a timestamped signature check must answer, given whether a right signature was sent and the timestamp:
 * "run", "error" (500), or "either" when the second ticked at a tolerance edge during the request.
 */
function expected(rightSent: boolean, ts: { offset?: number }, drift: number): "run" | "error" | "either" {
  if (ts.offset === undefined || !rightSent) return "error";
  const inside = (o: number) => Math.abs(o) <= TOLERANCE;
  if (inside(ts.offset) !== inside(ts.offset - drift)) return "either";
  return inside(ts.offset) ? "run" : "error";
}

async function standardWebhooksCase(rng: Rng, m: string): Promise<void> {
  const body = rng.pick(BODIES);
  const now = nowSeconds();
  const ts = timestamp(rng, now);
  const id = rng.pick(["msg_1", "", "msg ü", "__proto__", `msg_${m}`]);
  const right = createHmac("sha256", SW_KEY).update(`${id}.${ts.text}.${body}`).digest("base64");
  const entries = rng.times(3, () => {
    const v = variant(rng, right, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    const version = rng.pick(["v1", "v1", "v1", "v2", "v1a", ""]);
    return { text: `${version},${v.text}`, right: v.right && version === "v1" };
  });
  const sep = rng.pick([" ", " ", "  ", "\t", ","]);
  const signature = `${rng.pick(["", " ", "\t"])}${entries.map((e) => e.text).join(sep)}${rng.pick(["", " "])}`;
  // A tab or comma between entries makes them one entry, which is then no signature.
  const rightSent = entries.some((e) => e.right) && (entries.length === 1 || sep.startsWith(" "));
  const headers: [string, string][] = [["Content-Type", "application/json"]];
  const missing = rng.int(8);
  if (missing !== 0) headers.push([anyCase(rng, "webhook-id"), id]);
  if (missing !== 1) headers.push([anyCase(rng, "webhook-timestamp"), ts.text]);
  if (missing !== 2) headers.push([anyCase(rng, "webhook-signature"), signature]);
  const answer = await send(proxied, "sw", m, { headers, body });
  const drift = nowSeconds() - now;
  const ran = (await runsOf(m)).length;
  const what = JSON.stringify({ m, headers, body: body.slice(0, 40) });
  if (missing <= 2) {
    assert.deepEqual([answer.status, text(answer), ran], [200, NOT_SATISFIED, 0], what);
    return;
  }
  const want = expected(rightSent && entries.length > 0, ts, drift);
  const got = answer.status === 200 && text(answer) === "ok" && ran === 1 ? "run" : "error";
  if (got === "error") assert.deepEqual([answer.status, text(answer), ran], [500, RULE_ERROR, 0], what);
  if (want !== "either") assert.equal(got, want, what);
}

async function stripeCase(rng: Rng, m: string): Promise<void> {
  const body = rng.pick(BODIES);
  const now = nowSeconds();
  const ts = timestamp(rng, now);
  const right = createHmac("sha256", STRIPE_SECRET).update(`${ts.text}.${body}`).digest("hex");
  const items: { text: string; right: boolean }[] = rng.times(3, () => {
    const v = variant(rng, right, "0123456789abcdef");
    const scheme = rng.pick(["v1", "v1", "v0", "V1", "v2"]);
    return { text: `${rng.pick(["", " "])}${scheme}=${v.text}`, right: v.right && scheme === "v1" };
  });
  const tCount = rng.pick([1, 1, 1, 0, 2]);
  for (let i = 0; i < tCount; i++)
    items.splice(rng.int(items.length + 1), 0, { text: `${rng.pick(["", " "])}t=${ts.text}`, right: false });
  if (rng.chance(0.1)) items.push({ text: rng.pick(["garbage", "=", "", "t", "v1"]), right: false });
  const value = items.map((i) => i.text).join(",");
  const headers: [string, string][] = [["Content-Type", "text/plain"]];
  const missing = rng.chance(0.08);
  if (!missing) headers.push([anyCase(rng, "stripe-signature"), value]);
  const answer = await send(proxied, "stripe", m, { headers, body });
  const drift = nowSeconds() - now;
  const ran = (await runsOf(m)).length;
  const what = JSON.stringify({ m, headers, body: body.slice(0, 40) });
  if (missing) {
    assert.deepEqual([answer.status, text(answer), ran], [200, NOT_SATISFIED, 0], what);
    return;
  }
  const want = expected(tCount === 1 && items.some((i) => i.right), ts, drift);
  const got = answer.status === 200 && text(answer) === "ok" && ran === 1 ? "run" : "error";
  if (got === "error") assert.deepEqual([answer.status, text(answer), ran], [500, RULE_ERROR, 0], what);
  if (want !== "either") assert.equal(got, want, what);
}

const ADDRESSES = [
  "203.0.113.7",
  "203.0.113.250:8080",
  "198.51.100.9",
  "10.1.2.3",
  "127.0.0.1",
  "2001:db8::1",
  "[2001:db8::2]:443",
  "2001:db8:ffff::9",
  "::ffff:203.0.113.9",
  "unknown",
  "_hidden",
  "",
  "999.1.1.1",
  "203.0.113.7:99999",
  "fe80::1%eth0",
  "2001:db8::1%25x",
  "constructor",
];

async function proxiesCase(rng: Rng, m: string): Promise<void> {
  const headers: [string, string][] = [];
  const seen: string[] = [];
  const leftmost: string[] = [];
  for (const name of ["X-Forwarded-For", "Forwarded"]) {
    if (rng.chance(0.35)) continue;
    const lines = 1 + rng.int(2);
    for (let line = 0; line < lines; line++) {
      const entries = rng.times(3, () => rng.pick(ADDRESSES));
      if (entries.length === 0) entries.push(rng.pick(ADDRESSES));
      if (line === 0) leftmost.push(entries[0] as string);
      seen.push(...entries);
      const value =
        name === "Forwarded"
          ? entries
              .map((a) =>
                rng.pick([`for=${a}`, `for="${a}"`, `For="[${a}]"`, `for=${a};proto=https`, `by=${a}`, a]),
              )
              .join(rng.pick([",", ", ", ";"]))
          : entries.join(rng.pick([",", ", ", " ,"]));
      headers.push([anyCase(rng, name), value]);
    }
  }
  const what = JSON.stringify({ m, headers });
  for (const server of [proxied, direct]) {
    const tag = `${m}${server === proxied ? "p" : "d"}`;
    const who = await send(server, "who", tag, { headers });
    assert.equal(who.status, 200, what);
    const address = text(who);
    const ip = await send(server, "ip", `${tag}ip`, { headers });
    const allowed = /^(203\.0\.113\.|2001:db8:)/.test(address);
    if (server === direct) {
      assert.match(address, /^127\.0\.0\.1:\d+$/, what);
    } else if (!/^127\.0\.0\.1:\d+$/.test(address)) {
      // Either the socket's address, or one the headers named (the address alone), never a trusted proxy's.
      assert.ok(
        seen.some((a) => candidates(a).includes(address)),
        `${address} was not in the headers: ${what}`,
      );
      assert.doesNotMatch(address, /%/, `an address with a zone taken: ${what}`);
      // A trusted address only when the whole chain is trusted (then the leftmost, as nginx's real_ip_recursive).
      if (/^(10\.|127\.|2001:db8:ffff:)/.test(address))
        assert.ok(
          leftmost.some((a) => candidates(a).includes(address)),
          `a trusted hop taken: ${what}`,
        );
    }
    assert.deepEqual([ip.status, text(ip)], [200, allowed ? "ok" : NOT_SATISFIED], `${address} ${what}`);
    assert.equal((await runsOf(`${tag}ip`)).length, allowed ? 1 : 0, what);
  }
}

/** The address an entry names, with brackets, port or the IPv4-mapped prefix taken off. */
function candidates(entry: string): string[] {
  const out = [entry];
  const bracketed = /^\[(.*)\](:\d+)?$/.exec(entry)?.[1];
  if (bracketed !== undefined) out.push(bracketed);
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry)?.[1];
  if (v4 !== undefined) out.push(v4);
  return [...out, ...out.map((a) => a.replace(/^::ffff:/i, ""))];
}

async function dedupCase(rng: Rng, m: string): Promise<void> {
  const delivery = rng.pick([`d-${m}`, `d-${m}`, `__proto__-${m}`, `ü ${m}`, `${"x".repeat(500)}${m}`]);
  const count = 1 + rng.int(5);
  const token = rng.chance(0.8) ? "ok" : rng.pick(["no", "", "OK"]);
  const sendTo = (id: string) =>
    send(proxied, id, m, {
      method: "GET",
      headers: [
        ["X-Delivery", delivery],
        ["X-Token", token],
      ],
    });
  const answers = await Promise.all(Array.from({ length: count }, () => sendTo("dedup-a")));
  // The same delivery id to the other hook is another delivery: it runs there once too.
  const other = await sendTo("dedup-b");
  const what = JSON.stringify({ m, delivery: delivery.slice(0, 30), count, token });
  if (token !== "ok") {
    for (const a of [...answers, other]) assert.deepEqual([a.status, text(a)], [200, NOT_SATISFIED], what);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await runsOf(m), [], what);
    return;
  }
  for (const a of answers) assert.deepEqual([a.status, text(a)], [200, "dedup-a accepted"], what);
  assert.deepEqual([other.status, text(other)], [200, "dedup-b accepted"], what);
  const jobIds = new Set(answers.map((a) => headerOf(a, "X-Webhook-Job-Id")));
  assert.equal(jobIds.size, 1, `one job for every copy: ${what}`);
  await waitFor(`runs of ${m}`, async () => (await runsOf(m)).length >= 2, 10_000);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual((await runsOf(m)).sort(), [`dedup-a ${m}`, `dedup-b ${m}`], what);
}

async function queueCase(rng: Rng, m: string): Promise<void> {
  const count = 1 + rng.int(6);
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => send(proxied, "serial", `${m}-${i}`, { method: "GET" })),
  );
  const accepted = answers.filter((a) => a.status === 200);
  const what = JSON.stringify({ m, count, statuses: answers.map((a) => a.status) });
  // One runs, two wait; the rest are refused with Retry-After (the limit holds however many arrive at once).
  assert.equal(accepted.length, Math.min(count, 3), what);
  for (const a of answers) {
    if (a.status === 429) assert.match(headerOf(a, "Retry-After") ?? "", /^[1-9]\d*$/, what);
    else assert.equal(a.status, 200, what);
  }
  await waitFor(`queued runs of ${m}`, async () => {
    const lines = (await runs()).filter((l) => l.startsWith(`serial ${m}-`));
    return lines.length >= accepted.length;
  });
  // All over before the next case, so each case starts with an empty queue.
  for (const a of accepted) {
    const id = headerOf(a, "X-Webhook-Job-Id");
    await waitFor(`job ${id} to end`, async () => {
      const job = await rawRequest(proxied.port, { method: "GET", path: `/jobs/${id}` });
      return job.status === 200 && /"state":"succeeded"/.test(text(job));
    });
  }
  const ran = (await runs()).filter((l) => l.startsWith(`serial ${m}-`)).length;
  assert.equal(ran, accepted.length, what);
}

let knownJob: string | undefined;

async function jobsCase(rng: Rng, _m: string): Promise<void> {
  const id = rng.pick([
    knownJob ?? "0".repeat(32),
    "0".repeat(32),
    (knownJob ?? "a".repeat(32)).toUpperCase(),
    "constructor",
    "__proto__",
    "hasOwnProperty",
    "",
    "..",
    "%2e%2e",
    "%2F",
    `${knownJob ?? "b".repeat(32)}%00`,
    "%F0%9F%98%80",
    "a".repeat(5000),
    `${knownJob ?? "c".repeat(32)}/`,
  ]);
  const sub = rng.pick(["", "", "/output", "/output/", "/x", "/output/x", "/../hooks/who"]);
  const method = rng.pick(["GET", "GET", "HEAD", "DELETE", "POST", "PUT", "OPTIONS", "PATCH", "FOO"]);
  const path = `/jobs/${id}${sub}`;
  const answer = await rawRequest(proxied.port, { method, path });
  const what = JSON.stringify({ method, path: path.slice(0, 80) });
  const known = knownJob !== undefined && (id === knownJob || id === `${knownJob}/`);
  assert.ok([200, 202, 301, 404, 405, 409].includes(answer.status), `${answer.status} ${what}`);
  if (!known && answer.status !== 301 && !(id === "" && sub === "")) {
    assert.equal(answer.status, 404, what);
    if (method !== "HEAD") assert.equal(text(answer), "Job not found.", what);
  }
  if (answer.status === 405) assert.ok(headerOf(answer, "Allow"), what);
}

/** A streamed request on its own connection; resolves with a function that makes the client leave. */
function streamClient(m: string, sse: boolean, waitBytes: number): Promise<(how: "end" | "destroy") => void> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxied.port, "127.0.0.1");
    let got = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`stream ${m}: nothing within 10 s`));
    }, 10_000);
    const leave = (how: "end" | "destroy") => {
      clearTimeout(timer);
      if (how === "end") socket.end();
      else socket.destroy();
    };
    socket.on("connect", () => {
      socket.write(
        `GET /hooks/stream?m=${m} HTTP/1.1\r\nHost: x\r\n${sse ? "Accept: text/event-stream\r\n" : ""}\r\n`,
      );
      if (waitBytes === 0) {
        clearTimeout(timer);
        resolve(leave);
      }
    });
    socket.on("data", (c: Buffer) => {
      got += c.length;
      if (waitBytes > 0 && got >= waitBytes) {
        clearTimeout(timer);
        resolve(leave);
      }
    });
    socket.on("error", () => undefined);
  });
}

/**
 * Streamed output whose clients leave: the first once its answer has begun, the others (queued behind it, the hook
 * runs one at a time) before it. No command runs to its end, and the queued runs never start.
 */
let streamed = 0;

async function streamCase(rng: Rng, m: string): Promise<void> {
  const others = rng.int(3);
  const how = () => rng.pick(["end", "destroy"] as const);
  const first = await streamClient(`${m}-0`, rng.chance(0.5), rng.pick([1, 20]));
  const queued = await Promise.all(
    Array.from({ length: others }, (_, j) => streamClient(`${m}-${j + 1}`, rng.chance(0.5), 0)),
  );
  // The queued ones must be in the queue before they leave: each request to the hook logs "stream got matched".
  streamed += 1 + others;
  const matched = () => proxied.log().split("] stream got matched").length - 1;
  await waitFor(`${others} queued runs of ${m}`, () => matched() >= streamed);
  await new Promise((r) => setTimeout(r, 30));
  for (const leave of queued) leave(how());
  await new Promise((r) => setTimeout(r, 30));
  first(how());
  const what = JSON.stringify({ m, others });
  await waitFor(`the runs of ${m} to be over`, async () => {
    const scrape = text(await rawRequest(proxied.port, { method: "GET", path: "/metrics" }));
    return !/webhook_hook_commands_running\{hook="stream"\} [1-9]/.test(scrape);
  });
  await new Promise((r) => setTimeout(r, 500));
  const lines = (await runs()).filter((l) => l.includes(` ${m}-`));
  assert.deepEqual(lines, [`stream ${m}-0`], what);
  const ok = await rawRequest(proxied.port, { method: "GET", path: "/" });
  assert.deepEqual([ok.status, text(ok)], [200, "OK"]);
}

async function oddHookCase(rng: Rng, m: string): Promise<void> {
  const id = rng.pick([
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "%22%0A",
    "%C3%BC",
    "metrics",
    "SW",
  ]);
  const method = rng.pick(["GET", "POST", "DELETE"]);
  const answer = await send(proxied, id, m, { method });
  assert.deepEqual([answer.status, text(answer)], [404, "Hook not found."], id);
}

const CASE_KINDS: [number, (rng: Rng, m: string) => Promise<void>][] = [
  [30, standardWebhooksCase],
  [25, stripeCase],
  [16, proxiesCase],
  [6, dedupCase],
  [3, queueCase],
  [10, jobsCase],
  [4, streamCase],
  [6, oddHookCase],
];

function pickKind(rng: Rng): (rng: Rng, m: string) => Promise<void> {
  const total = CASE_KINDS.reduce((s, [w]) => s + w, 0);
  let at = rng.int(total);
  for (const [w, kind] of CASE_KINDS) {
    if (at < w) return kind;
    at -= w;
  }
  return standardWebhooksCase;
}

test(`extensions fuzz: ${CASES} seeded cases (seed ${SEED}) keep every property`, {
  timeout: Math.max(120_000, CASES * 200),
}, async () => {
  const rng = new Rng(SEED);
  // A job id the jobs cases can use.
  const first = await send(proxied, "serial", "seedjob", { method: "GET" });
  knownJob = headerOf(first, "X-Webhook-Job-Id");
  assert.match(knownJob ?? "", /^[0-9a-f]{32}$/);
  // Over before the first case, so the queue cases start with the hook idle.
  await waitFor("the first job to end", async () =>
    /"state":"succeeded"/.test(
      text(await rawRequest(proxied.port, { method: "GET", path: `/jobs/${knownJob}` })),
    ),
  );
  for (let i = 0; i < CASES; i++) {
    const kind = pickKind(rng);
    const m = `c${i}`;
    if (process.env.FUZZ_TRACE) process.stderr.write(`case ${i} ${kind.name} ${new Date().toISOString()}\n`);
    try {
      await kind(rng, m);
    } catch (error) {
      throw new Error(`case ${i} (${kind.name}, seed ${SEED}): ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  // The label set of -metrics holds only the hooks served and "(unknown)".
  const scrape = text(await rawRequest(proxied.port, { method: "GET", path: "/metrics" }));
  const labels = new Set([...scrape.matchAll(/^webhook_[a-z_]+\{hook="([^"]*)"/gm)].map((x) => x[1]));
  for (const label of labels) assert.ok([...HOOK_IDS, "(unknown)"].includes(label as string), String(label));
  assert.match(scrape, /webhook_hook_requests_total\{hook="sw",outcome="rules_error"\} [1-9]/);
  for (const server of [proxied, direct]) {
    const ok = await rawRequest(server.port, { method: "GET", path: "/" });
    assert.equal(ok.status, 200);
    assert.equal(server.child.exitCode, null);
    assert.doesNotMatch(server.log(), /\n\s+at .*:\d+:\d+\)?\n|Uncaught|TypeError|RangeError/);
  }
});
