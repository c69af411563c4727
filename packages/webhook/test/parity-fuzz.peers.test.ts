// Differential fuzzing against Debian's /usr/bin/webhook 2.8.0: a hooks file of random hooks (rule trees, every
// parameter source, pass-* arguments, response options) and random requests to them (JSON, form, multipart, XML,
// wrong types, signatures right and wrong), all drawn from a fixed seed, go to both servers; status, body, visible
// headers and the command's recorded effect (argv, env, cwd, stdin, passed files and their removal) must be equal.
// FUZZ_SEED and FUZZ_CASES replay or widen a run by hand; a failure names its seed and case index.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { OUR_WEBHOOK as OURS, PEER_WEBHOOK as PEER } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { type FuzzHook, fuzzFlags, fuzzHook, fuzzRequest, Rng } from "./support/parity-fuzz-cases.js";
import { type RawResponse, rawRequest } from "./support/raw-http.js";
import { RUN_RECORDER } from "./support/run-recorder.js";
import { ServerGroup } from "./support/server-group.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 160);
const HOOKS = 48;

type Side = "peer" | "ours";
const SIDES = ["peer", "ours"] as const;

let root: string;
const ports = new Map<Side, number>();
const servers = new ServerGroup();
const rng = new Rng(SEED);
const flags = fuzzFlags(rng);
const hooks: FuzzHook[] = [];
/** How the peer answered, tallied for the closing diagnostic (how much of the space the seed reached). */
const seen = new Map<string, number>();

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-fuzz-"));
  for (const d of ["bin", "peer/rec", "peer/tmp", "ours/rec", "ours/tmp"])
    await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, "recorder.cjs"), RUN_RECORDER);
  for (let i = 0; i < HOOKS; i++) {
    const command = join(root, "bin", `h${i}`);
    const hook = fuzzHook(rng, i, command);
    hooks.push(hook);
    const script = `#!${process.execPath}\nrequire(${JSON.stringify(join(root, "recorder.cjs"))})(${JSON.stringify(hook.id)}, ${JSON.stringify(hook.recorder)});\n`;
    await writeFile(command, script, { mode: 0o755 });
  }
  // Half the hooks in JSON, half in YAML (read as yaml.v2 reads YAML 1.1, on both sides).
  const half = (odd: number) => hooks.filter((_, i) => i % 2 === odd).map((h) => h.def);
  await writeFile(join(root, "hooks.json"), JSON.stringify(half(0), null, 1));
  await writeFile(join(root, "hooks.yaml"), stringify(half(1)));
  const started = await Promise.allSettled(
    SIDES.map(async (side) => {
      const port = await freePort();
      const argv = [
        "-hooks",
        join(root, "hooks.json"),
        "-hooks",
        join(root, "hooks.yaml"),
        "-ip",
        "127.0.0.1",
        "-port",
        String(port),
      ];
      const args = [...argv, "-verbose", "-header", "X-Global=g", "-urlprefix", flags.urlPrefix];
      if (flags.httpMethods !== "") args.push("-http-methods", flags.httpMethods);
      const dir = join(root, side);
      await servers.start(
        side === "peer" ? PEER : process.execPath,
        side === "peer" ? args : [OURS, ...args],
        {
          cwd: dir,
          env: {
            PATH: "/usr/local/bin:/usr/bin:/bin",
            REC_DIR: join(dir, "rec"),
            SIDE_DIR: dir,
            TMPDIR: join(dir, "tmp"),
          },
          ready: "serving hooks on",
        },
      );
      ports.set(side, port);
    }),
  );
  for (const result of started) if (result.status === "rejected") throw result.reason;
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

function visible(r: RawResponse): string[] {
  return r.headers.map(([k, v]) => (k.toLowerCase() === "date" ? "date" : `${k.toLowerCase()}: ${v}`));
}

async function records(side: Side, id: string): Promise<string[]> {
  const text = await readFile(join(root, side, "rec", `${id}.jsonl`), "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

interface Outcome {
  readonly res: RawResponse;
  readonly runs: unknown[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The runs a request added; an async hook's run is awaited (up to 2 s) when the answer says it was triggered (a
 * command that cannot start, such as one given a NUL byte, records nothing on either side).
 */
async function runsAfter(side: Side, hook: FuzzHook, before: number, res: RawResponse): Promise<unknown[]> {
  const triggered =
    res.status !== 404 &&
    res.status !== 405 &&
    !/^(Hook rules|Error occurred while evaluating)/.test(res.body.toString());
  let lines = await records(side, hook.id);
  if (hook.async && triggered) {
    for (let i = 0; lines.length === before && i < 40; i++) {
      await sleep(50);
      lines = await records(side, hook.id);
    }
    await sleep(hook.recorder.stderr ? 300 : 100); // let the command end and its files go
  }
  return lines.slice(before).map((l) => {
    const { paths, ...entry } = JSON.parse(l) as { paths: string[] };
    for (const p of paths)
      assert.equal(existsSync(p), false, `${side}: ${p} must be removed after the command`);
    return entry;
  });
}

for (let i = 0; i < CASES; i++) {
  test(`fuzz seed ${SEED} case ${i}`, async () => {
    const hook = rng.pick(hooks);
    const req = fuzzRequest(rng, hook, flags);
    const label = `seed ${SEED} case ${i} (${JSON.stringify(flags)})\nhook ${JSON.stringify(hook.def).split(root).join("<root>")}\nrequest ${JSON.stringify(req)}`;
    const [peer, ours] = (await Promise.all(
      SIDES.map(async (side) => {
        const before = (await records(side, hook.id)).length;
        const res = await rawRequest(ports.get(side) as number, req);
        return { res, runs: await runsAfter(side, hook, before, res) };
      }),
    )) as [Outcome, Outcome];
    const outcome = `${peer.res.status} ${peer.runs.length > 0 ? "ran" : peer.res.body.toString().slice(0, 24)}`;
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    assert.equal(ours.res.status, peer.res.status, `status\n${label}`);
    assert.deepEqual(
      ours.res.informational,
      peer.res.informational,
      `interim answers (100 Continue)\n${label}`,
    );
    assert.equal(ours.res.body.toString("latin1"), peer.res.body.toString("latin1"), `body\n${label}`);
    assert.deepEqual(visible(ours.res), visible(peer.res), `headers\n${label}`);
    assert.deepEqual(ours.runs, peer.runs, `the command's effect\n${label}`);
  });
}

test("fuzz: no file left behind by either side", async (t) => {
  t.diagnostic(JSON.stringify(Object.fromEntries([...seen].sort((a, b) => b[1] - a[1]))));
  await sleep(300);
  for (const side of SIDES)
    assert.deepEqual(await readdir(join(root, side, "tmp")), [], `${side}: files left`);
});
