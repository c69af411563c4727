// Differential fuzzing of -template against Debian's /usr/bin/webhook 2.8.0 (Go 1.19's text/template): seeded random
// templates (test/support/template-fuzz-cases.ts), each the response-message of one hook in a file of its own, are
// loaded with -template by both servers, 30 files a start (each file loads on its own, so a refused one stops none of
// the others); what each file came to (its hook's answer, or the refusal line word for word) must be equal. The output
// stands in a block scalar, as a plain, double- or single-quoted scalar, or in a JSON file's string, so YAML also
// types, folds and unescapes it.
// FUZZ_SEED and FUZZ_CASES replay or widen a run by hand; a failure names the seed, the case and its template.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK, PEER_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { Rng } from "./support/parity-fuzz-cases.js";
import { ServerGroup } from "./support/server-group.js";
import { EMBEDDINGS, FUZZ_ENV, hooksFile, TemplateGen } from "./support/template-fuzz-cases.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const CASES = Number(process.env.FUZZ_CASES ?? 2400);
const BATCH = 30;

const servers = new ServerGroup();
let root: string;
/** How the peer answered each template, tallied for the closing diagnostic. */
const seen = new Map<string, number>();

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-template-fuzz-"));
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

/** What one file of one template came to: the hooks loaded from it and their answers, or its refusal line. */
type Outcome = string;

/**
 * Starts one server on the files (one template each: every file is loaded on its own, so a refused one stops none of
 * the others), reads what each file came to from the log, asks each loaded hook once (the body as bytes), stops it.
 */
async function run(side: "peer" | "ours", files: readonly string[]): Promise<Map<string, Outcome>> {
  const port = await freePort();
  const args = [
    "-template",
    ...files.flatMap((f) => ["-hooks", f]),
    "-ip",
    "127.0.0.1",
    "-port",
    String(port),
    "-verbose",
  ];
  const server = await servers.start(
    side === "peer" ? PEER_WEBHOOK : process.execPath,
    side === "peer" ? args : [OUR_WEBHOOK, ...args],
    { ready: "serving hooks on", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...FUZZ_ENV } },
  );
  try {
    const outcomes = new Map<string, Outcome>();
    const sections = server
      .log()
      .split(/^\[webhook\] [\d/: ]+attempting to load hooks from /m)
      .slice(1);
    for (const section of sections) {
      const lines = section
        .split("\n")
        .map((l) => l.replace(/^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ""));
      const file = lines[0] ?? "";
      const refusal = lines.find((l) => l.startsWith("couldn't load"));
      const answers: string[] = [];
      for (const id of lines.filter((l) => l.startsWith("\tloaded: ")).map((l) => l.slice(9))) {
        const response = await fetch(`http://127.0.0.1:${port}/hooks/${encodeURIComponent(id)}`, {
          signal: AbortSignal.timeout(5000),
        });
        answers.push(
          `${id}: ${response.status} ${Buffer.from(await response.arrayBuffer()).toString("latin1")}`,
        );
      }
      // A YAML syntax error (from what a template wrote) is worded by the yaml package, at the line it stops at
      // (README: Differences); the reader's (control characters, bytes that are not UTF-8) are libyaml's words.
      outcomes.set(
        file,
        refusal?.replace(
          /(error converting YAML to JSON: yaml: )(?!invalid |incomplete |control ).*$/,
          "$1…",
        ) ?? answers.join("\n"),
      );
    }
    return outcomes;
  } finally {
    await servers.stop(server.child);
  }
}

/** The kind of an outcome, for the closing tally: answered, or the refusal without its place. */
function kind(outcome: Outcome): string {
  if (!outcome.startsWith("couldn't load")) return outcome === "" ? "no hooks" : "answered";
  return outcome
    .replace(/^couldn't load hooks from file! /, "")
    .replace(/^template: hooks:\d+(:\d+)?: (executing "[^"]*" at <.*?>: )?/, "")
    .slice(0, 40);
}

/** Both servers on the files; a file the peer panics on is left out (and named in `skipped`) and the rest run again. */
async function compareRuns(all: readonly string[]) {
  const skipped: string[] = [];
  for (;;) {
    const files = all.filter((f) => !skipped.includes(f));
    const [peer, ours] = await Promise.allSettled([run("peer", files), run("ours", files)]);
    if (peer.status === "fulfilled" && ours.status === "fulfilled")
      return { peer: peer.value, ours: ours.value, skipped };
    const log = peer.status === "rejected" ? String(peer.reason) : "";
    const culprit =
      /attempting to load hooks from (\S+)\n(?:(?!attempting)[\s\S])*panic: should not happen/.exec(log)?.[1];
    if (culprit === undefined || skipped.includes(culprit))
      throw peer.status === "rejected" ? peer.reason : (ours as PromiseRejectedResult).reason;
    skipped.push(culprit);
  }
}

const rng = new Rng(SEED);
for (let start = 0; start < CASES; start += BATCH) {
  const ids = Array.from({ length: Math.min(BATCH, CASES - start) }, (_, i) => start + i);
  const templates = ids.map((id) => new TemplateGen(rng, `h${id}`).template());
  const embeddings = ids.map(() => rng.pick(EMBEDDINGS));
  test(`template fuzz seed ${SEED} cases ${start}-${start + ids.length - 1}`, async () => {
    const files = ids.map((id) => join(root, `t${id}.yaml`));
    for (const [i, id] of ids.entries())
      await writeFile(files[i] as string, hooksFile(templates[i] as string, id, embeddings[i]));
    const { peer, ours, skipped } = await compareRuns(files);
    for (const file of skipped) {
      // yaml.v2 2.8.0 vendors panics on some files ("should not happen", scannerc.go yaml_parser_save_simple_key) and
      // takes the server down: a peer bug not copied; ours refuses such a file.
      seen.set("skipped: yaml.v2 panics", (seen.get("skipped: yaml.v2 panics") ?? 0) + 1);
      assert.match((await run("ours", [file])).get(file) ?? "", /^couldn't load hooks from file! /, file);
    }
    for (const [i, file] of files.entries()) {
      if (skipped.includes(file)) continue;
      const expected = peer.get(file);
      assert.ok(expected !== undefined, `the peer did not load ${file}`);
      seen.set(kind(expected), (seen.get(kind(expected)) ?? 0) + 1);
      // libyaml reads a long file in 512-byte chunks as it scans, so it may name a syntax error before a byte it
      // refuses further on, which ours names first (README: Differences): both refuse, the reasons differ.
      if (expected.endsWith("yaml: …") && /yaml: (invalid|incomplete|control)/.test(ours.get(file) ?? ""))
        continue;
      assert.equal(
        ours.get(file),
        expected,
        `seed ${SEED} case ${ids[i]} (${embeddings[i]}): ${JSON.stringify(templates[i])}`,
      );
    }
    await Promise.all(files.map((f) => rm(f)));
  });
}

test("template fuzz: what the peer answered", (t) => {
  t.diagnostic(JSON.stringify(Object.fromEntries([...seen].sort((a, b) => b[1] - a[1]))));
  assert.ok(seen.size > 0);
});
