// Differential fuzzing of -template against Debian's /usr/bin/webhook 2.8.0 (Go 1.19's text/template): seeded random
// templates (test/support/template-fuzz-cases.ts) are the response-message of hooks in one file, which both servers
// load with -template; the hooks loaded and each one's answer, or the refusal line word for word, must be equal. A
// refused file is run again without the hook the error names (or in halves when it names none, as for a YAML error
// from what a template wrote), so every template is compared. FUZZ_SEED and FUZZ_CASES replay or widen a run by hand.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK, PEER_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { Rng } from "./support/parity-fuzz-cases.js";
import { ServerGroup } from "./support/server-group.js";
import { FUZZ_ENV, hooksFile, TemplateGen } from "./support/template-fuzz-cases.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const CASES = Number(process.env.FUZZ_CASES ?? 240);
const BATCH = 20;

const servers = new ServerGroup();
let root: string;
let files = 0;
/** How the peer answered each template, tallied for the closing diagnostic. */
const seen = new Map<string, number>();

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-template-fuzz-"));
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

interface Outcome {
  readonly loaded: readonly string[];
  readonly refusal: string | undefined;
  readonly answers: Readonly<Record<string, string>>;
}

/** Starts one server on the file, asks each loaded hook once (the body as bytes, latin1), stops it. */
async function run(side: "peer" | "ours", file: string): Promise<Outcome> {
  const port = await freePort();
  const args = ["-template", "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  const server = await servers.start(
    side === "peer" ? PEER_WEBHOOK : process.execPath,
    side === "peer" ? args : [OUR_WEBHOOK, ...args],
    { ready: "serving hooks on", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...FUZZ_ENV } },
  );
  try {
    const lines = server
      .log()
      .split("\n")
      .map((l) => l.replace(/^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ""));
    const loaded = lines.filter((l) => l.startsWith("\tloaded: ")).map((l) => l.slice(9));
    const answers: Record<string, string> = {};
    for (const id of loaded) {
      const response = await fetch(`http://127.0.0.1:${port}/hooks/${encodeURIComponent(id)}`, {
        signal: AbortSignal.timeout(5000),
      });
      answers[id] = `${response.status} ${Buffer.from(await response.arrayBuffer()).toString("latin1")}`;
    }
    const refusal = lines
      .find((l) => l.startsWith("couldn't load"))
      // A YAML syntax error (from what a template wrote) is worded by the yaml package (README: Differences).
      ?.replace(/(error converting YAML to JSON: yaml: ).*$/, "$1…");
    return { loaded, refusal, answers };
  } finally {
    await servers.stop(server.child);
  }
}

async function both(templates: readonly string[], ids: readonly number[]) {
  const { text, lineOwner } = hooksFile(templates, ids);
  const file = join(root, `hooks-${files++}.yaml`);
  await writeFile(file, text);
  const [peer, ours] = await Promise.all([run("peer", file), run("ours", file)]);
  await rm(file);
  return { peer, ours, lineOwner };
}

function label(templates: readonly string[], ids: readonly number[]): string {
  return ids.map((id, i) => `t${id}: ${JSON.stringify(templates[i])}`).join("\n");
}

/**
 * Compares the file of `templates` (hook ids `ids`); a refused one is compared again without the refused template, or
 * in halves. A difference in a file of several is narrowed to the first template that differs alone.
 */
async function compare(templates: readonly string[], ids: readonly number[]): Promise<void> {
  const { peer, ours, lineOwner } = await both(templates, ids);
  if (JSON.stringify(ours) !== JSON.stringify(peer) && templates.length > 1) {
    for (const [i, t] of templates.entries()) await compare([t], [ids[i] ?? i]);
  }
  assert.deepEqual(ours, peer, `seed ${SEED}\n${label(templates, ids)}`);
  if (peer.refusal === undefined) {
    for (const id of ids) {
      const answer = peer.answers[`t${id}`] ?? "not loaded";
      const kind = answer.startsWith("200 [") ? "answered" : answer.slice(0, 12);
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }
    return;
  }
  const line = /template: hooks:(\d+)/.exec(peer.refusal)?.[1];
  const owner = line === undefined ? -1 : (lineOwner[Number(line)] ?? -1);
  if (owner >= 0 && !peer.refusal.includes("YAML")) {
    const kind = peer.refusal.replace(/^.*?: (executing .*?>: )?/, "").slice(0, 30);
    seen.set(`refused: ${kind}`, (seen.get(`refused: ${kind}`) ?? 0) + 1);
    const rest = ids.map((id, i) => [id, i] as const).filter(([id]) => id !== owner);
    if (rest.length > 0)
      await compare(
        rest.map(([, i]) => templates[i] ?? ""),
        rest.map(([id]) => id),
      );
  } else if (templates.length > 1) {
    const half = Math.ceil(templates.length / 2);
    await compare(templates.slice(0, half), ids.slice(0, half));
    await compare(templates.slice(half), ids.slice(half));
  } else {
    seen.set("refused: YAML", (seen.get("refused: YAML") ?? 0) + 1);
  }
}

const rng = new Rng(SEED);
for (let start = 0; start < CASES; start += BATCH) {
  const ids = Array.from({ length: Math.min(BATCH, CASES - start) }, (_, i) => start + i);
  const templates = ids.map((id) => new TemplateGen(rng, `h${id}`).template());
  test(`template fuzz seed ${SEED} cases ${start}-${start + ids.length - 1}`, () => compare(templates, ids));
}

test("template fuzz: what the peer answered", (t) => {
  t.diagnostic(JSON.stringify(Object.fromEntries([...seen].sort((a, b) => b[1] - a[1]))));
  assert.ok(seen.size > 0);
});
