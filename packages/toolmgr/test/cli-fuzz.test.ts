import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { absoluteProbe, fuzzArtifact } from "./support/fuzz-archive.js";
import { type FuzzHost, startFuzzHost } from "./support/fuzz-host.js";
import { emptyPlan, hostPlan } from "./support/fuzz-host-plan.js";
import { editLock } from "./support/fuzz-lock.js";
import { breakText, projectText } from "./support/fuzz-project.js";
import { Random } from "./support/fuzz-random.js";
import { runProgram, TOOLMGR_BIN } from "./support/run-cli.js";
import { type MainOutcome, runMain } from "./support/run-main.js";
import { tempDir } from "./support/temp-dir.js";

// Property fuzzing through the CLI (`main(argv, deps)`, as cli.ts runs it) against a loopback code host: from a fixed
// seed, generated toolmgr.toml files, hand-edited locks, host answers and archives, and for every case the
// properties the house rules promise: an exit code of ours, a clear error instead of a stack trace, a failed `lock`
// leaves the old lock byte for byte, a failed `sync` installs nothing half-way and writes nothing outside the store and
// the project, the token reaches no other origin and no output or file, and `lock` run twice writes the same lock.
// FUZZ_SEED and FUZZ_CASES change the run (README "Tests"); a failure names the case's seed to replay it alone.

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 200);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const TOKEN = "fuzz-token-5f3c9a71e2d4";
const NOW = new Date("2026-11-23T00:00:00Z");

let host: FuzzHost;

before(async () => {
  host = await startFuzzHost(emptyPlan());
});

after(async () => {
  await host.close();
});

/** `main()` in this process, the shims handing over to the built launcher, as when users run it. */
function runInProcess(args: readonly string[], options: { cwd: string; env: Record<string, string> }) {
  return runMain(args, { ...options, now: () => NOW, launcher: [process.execPath, TOOLMGR_BIN] });
}

/** Every regular file, directory and link below `dir`, as absolute paths. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.map((e) => join(e.parentPath ?? e.path, e.name));
}

async function readIfThere(path: string): Promise<Buffer | undefined> {
  return readFile(path).catch(() => undefined);
}

/** The properties of one command's outcome; returns the problems found. */
function checkOutcome(what: string, r: MainOutcome, inputs: string): string[] {
  const problems: string[] = [];
  const say = (p: string) =>
    problems.push(
      `${what}: ${p}\n    exit ${r.code}\n    stdout: ${r.stdout.slice(0, 300)}\n    stderr: ${r.stderr.slice(0, 900)}`,
    );
  if (![0, 1, 2, 3].includes(r.code)) say(`exit code ${r.code} is none of 0, 1, 2, 3`);
  const text = `${r.stdout}\n${r.stderr}`;
  if (text.includes(TOKEN)) say("the token appears in the output");
  if (/unexpected error|^\s+at .+[:(]\d+/m.test(r.stderr)) say("a stack trace instead of a message");
  if (/\b(TypeError|ReferenceError|RangeError)\b/.test(text)) say("a JavaScript error name in the output");
  if (text.includes("[object Object]")) say('"[object Object]" in the output');
  if (/\bundefined\b/.test(text) && !inputs.includes("undefined")) say('"undefined" in the output');
  // Exit 3 is a verdict (`lock --check` would change, `status` found a tool missing), reported on stdout.
  if ((r.code === 1 || r.code === 2) && !/^toolmgr: (?!warning|ignoring)\S/m.test(r.stderr))
    say("a failure without a toolmgr: message");
  return problems;
}

/** A failed or successful sync leaves no half install, no leftover, and every link of an install inside it. */
async function checkStore(home: string, synced: boolean, shimsBefore: string[]): Promise<string[]> {
  const problems: string[] = [];
  const tools = join(home, "tools");
  for (const name of await readdir(tools).catch(() => [] as string[])) {
    for (const install of await readdir(join(tools, name)).catch(() => [] as string[])) {
      const dir = join(tools, name, install);
      if (install.startsWith(".")) {
        problems.push(`sync left ${dir} behind`);
        continue;
      }
      if (!existsSync(join(dir, ".toolmgr-install"))) problems.push(`an install without its marker: ${dir}`);
      for (const path of await walk(dir)) {
        const s = await lstat(path);
        if (!s.isSymbolicLink()) continue;
        const target = resolve(dirname(path), await readlink(path));
        if (target !== dir && !target.startsWith(`${dir}/`))
          problems.push(`the link ${path} leaves its install for ${target}`);
      }
    }
  }
  for (const f of await readdir(join(home, "cache")).catch(() => [] as string[]))
    if (f.startsWith(".download-")) problems.push(`a download left behind: ${f}`);
  if (!synced) {
    const shims = (await readdir(join(home, "shims")).catch(() => [] as string[])).sort();
    if (shims.join() !== shimsBefore.join())
      problems.push(`a failed sync changed the shims: ${shims.join()}`);
  }
  return problems;
}

/**
 * Damages one file the store holds (a cached artifact, a remembered answer, a project record, a marker): cut short,
 * overwritten, replaced by a directory, or by a link out of the store. What the store holds is re-checked, never
 * trusted: commands must still answer in words, and `sync` must still install only verified bytes.
 */
async function damageStore(rng: Random, home: string, root: string): Promise<void> {
  const files: string[] = [];
  const shims = join(home, "shims");
  // Not the shims themselves (a shim cut short is a program cut short, not a store record to re-check), nor the
  // answers they source (`shim-answers.sh` is shell the shim runs by design, README "Hot path": as trusted as a shim).
  for (const path of await walk(home))
    if ((await lstat(path)).isFile() && dirname(path) !== shims && !path.endsWith("/shim-answers.sh"))
      files.push(path);
  if (files.length === 0) return;
  const victim = rng.pick(files);
  switch (rng.int(0, 4)) {
    case 0:
      await truncate(victim, Math.floor((await lstat(victim)).size / 2));
      return;
    case 1:
      await writeFile(victim, rng.pick(["", "{", "garbage\n", "\u0000\u0000", '{"version": 99}']));
      return;
    case 2:
      await rm(victim);
      await mkdir(victim);
      return;
    case 3:
      await writeFile(plantedFile(root), "#!/bin/sh\necho outside\n");
      await rm(victim);
      await symlink(plantedFile(root), victim);
      return;
    default:
      await rm(victim);
  }
}

/** The file damageStore links to from inside the store: written by the test, the one file allowed outside. */
function plantedFile(root: string): string {
  return join(root, "p", "outside-target");
}

/**
 * A shim and `toolmgr exec` decide alike (README "sync, shims, exec"): after a hand edit of the lock, or none, both
 * run the tool or both refuse. The words may differ (a shim names an invalid entry its own way), the verdict may not:
 * a lock the shim's awk reads differently from parseLockfile would run what exec refuses.
 */
async function shimParity(
  rng: Random,
  where: { project: string; home: string; root: string; env: Record<string, string> },
): Promise<string[]> {
  const lockPath = join(where.project, "toolmgr.lock");
  const lock = await readFile(lockPath, "utf8");
  const edit = rng.chance(0.6) ? editLock(rng, lock, { api: host.apiUrl, other: host.otherUrl }) : lock;
  if (edit !== lock) await writeFile(lockPath, edit);
  const damaged = rng.chance(0.3);
  if (damaged) await damageStore(rng, where.home, where.root);
  const shims = join(where.home, "shims");
  // (No shims here when an odd TOOLMGR_HOME put the store elsewhere.)
  const [command] = (await readdir(shims).catch(() => [] as string[])).filter((f) => !f.startsWith("."));
  if (command === undefined) return []; // a project without tools
  const shimEnv = { TOOLMGR_HOME: where.home, HOME: where.home, PATH: `${shims}:/usr/bin:/bin` };
  const viaShim = await runProgram(join(shims, command), [], { cwd: where.project, env: shimEnv });
  const viaExec = await runProgram(process.execPath, [TOOLMGR_BIN, "exec", command], {
    cwd: where.project,
    env: { ...where.env, PATH: shimEnv.PATH },
    timeout: 30_000,
  });
  // In a damaged store the shim may refuse where exec repairs or ignores a record (it cannot rewrite one), but it
  // must never run anything exec refuses.
  const disagree = damaged
    ? viaShim.code === 0 && (viaExec.code !== 0 || viaShim.stdout !== viaExec.stdout)
    : viaShim.code !== viaExec.code || (viaShim.code === 0 && viaShim.stdout !== viaExec.stdout);
  if (disagree)
    return [
      `the shim and exec disagree after ${edit === lock ? "no edit" : `the edit:\n${edit}`}${damaged ? " (store damaged)" : ""}\n    shim: ${JSON.stringify(viaShim)}\n    exec: ${JSON.stringify(viaExec)}`,
    ];
  return [];
}

async function runCase(index: number, goodLocks: string[]): Promise<string[]> {
  const seed = (SEED + index * 7919) >>> 0;
  const rng = new Random(seed);
  const root = await tempDir("toolmgr-fuzz-");
  const project = join(root, "p", "q", "r", "s", "t", "u", "project");
  const home = join(root, "h", "i", "j", "k", "l", "m", "home");
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  const commit = rng.hex(40);
  const artifact = fuzzArtifact(rng, seed);
  host.leaks.length = 0;
  host.plan = hostPlan(rng, artifact, { commit, otherUrl: host.otherUrl });
  const toml = projectText(rng, { ...artifact, apiUrl: host.apiUrl, commit }, { clean: rng.chance(0.5) });
  await writeFile(join(project, "toolmgr.toml"), toml);
  const lockPath = join(project, "toolmgr.lock");
  if (rng.chance(0.25)) {
    const old = goodLocks.length > 0 && rng.chance(0.6) ? rng.pick(goodLocks) : "version = 1\n";
    await writeFile(lockPath, rng.chance(0.3) ? breakText(rng, old) : old);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    CODEHOST_API_URL: host.apiUrl,
    TOOLMGR_HOME: home,
    // The user's own configuration (mirrors in ~/.config/toolmgr/config.toml) is none of the case's business.
    HOME: home,
    TOOLMGR_HTTP_TIMEOUT: "5",
    ...(rng.chance(0.7) ? { CODEHOST_TOKEN: TOKEN } : {}),
  };
  if (rng.chance(0.08)) {
    // One variable of the environment set to something odd: refused at the edge (exit 2 naming it) or harmless.
    const [name, value] = rng.pick<[string, string]>([
      ["TOOLMGR_HTTP_TIMEOUT", rng.pick(["0", "-1", "abc", "1e309", "", "NaN", "0x10"])],
      ["TOOLMGR_MIN_RELEASE_AGE", rng.pick(["7w", "-1d", "", "constructor", "99999999999d", "0"])],
      [
        "CODEHOST_API_URL",
        rng.pick(["not a url", "ftp://127.0.0.1/", "", `${host.apiUrl}/../x`, `${host.apiUrl}?a=b`]),
      ],
      [
        "TOOLMGR_MIRRORS",
        rng.pick(["oci://", "=x", "constructor=x", ",", "http://example.invalid/=x", "oci://127.0.0.1:1"]),
      ],
      ["TOOLMGR_OFFLINE", rng.pick(["1", "0", "yes", ""])],
      ["TOOLMGR_HOME", rng.pick(["", "/dev/null", join(home, "..", "home")])],
    ]);
    env[name] = value;
  }
  const inputs = `${toml}\n${artifact.description}`;
  const label = `case ${index} (FUZZ_SEED=${SEED} FUZZ_CASE=${index}; ${artifact.description}; faults ${[...host.plan.faults.keys()].join()})`;
  const problems: string[] = [];
  const run = async (args: string[]) => {
    const r = await runInProcess(args, { cwd: project, env });
    problems.push(...checkOutcome(`toolmgr ${args.join(" ")}`, r, inputs));
    return r;
  };

  const before = await readIfThere(lockPath);
  const locked = await run(["lock"]);
  const after = await readIfThere(lockPath);
  if (locked.code !== 0 && !(before?.equals(after ?? Buffer.alloc(0)) ?? after === undefined))
    problems.push("a failed lock changed toolmgr.lock");
  if (locked.code === 0 && after !== undefined) {
    const text = after.toString();
    try {
      parseLockfile(text);
      goodLocks.push(text);
    } catch (error) {
      problems.push(`lock wrote a lock it cannot read: ${(error as Error).message}`);
    }
    const again = await run(["lock"]);
    if (
      again.code !== 0 ||
      !(await readFile(lockPath)).equals(after) ||
      !again.stdout.endsWith("is up to date\n")
    )
      problems.push(`a second lock differs: exit ${again.code}, ${again.stdout}${again.stderr}`);
    const check = await run(["lock", "--check"]);
    if (check.code !== 0) problems.push(`lock --check after lock: exit ${check.code}`);
    // A digest the case's first lock carried over for an unchanged URL (Checksum rule 4) may be another case's
    // artifact's: the host serves other bytes at that URL now (seed 1234 case 792).
    const carried = [...text.matchAll(/^url = "([^"]+)"$/gm)].some((m) => before?.includes(`"${m[1]}"`));
    if (rng.chance(0.3) && !text.includes("windows/") && !carried) {
      // Another machine (a fresh store, no lock yet) resolves the same project to the same bytes (contract scenario 3:
      // "the same input produces the same lockfile"); a tool lock made on Windows could differ by its `.exe` only.
      const elsewhere = join(root, "p", "elsewhere");
      await mkdir(elsewhere);
      await writeFile(join(elsewhere, "toolmgr.toml"), toml);
      const fresh = await runInProcess(["lock"], {
        cwd: elsewhere,
        env: { ...env, TOOLMGR_HOME: join(root, "h", "fresh") },
      });
      problems.push(...checkOutcome("toolmgr lock (elsewhere)", fresh, inputs));
      const second = await readIfThere(join(elsewhere, "toolmgr.lock"));
      if (fresh.code !== 0 || !second?.equals(after))
        problems.push(`a fresh store locks otherwise:\n${second?.toString()}\n    vs\n${text}`);
    }
  }
  if (after !== undefined && rng.chance(0.4)) {
    await writeFile(lockPath, editLock(rng, after.toString(), { api: host.apiUrl, other: host.otherUrl }));
  }
  if (rng.chance(0.2)) await damageStore(rng, home, root);
  const shimsBefore = (await readdir(join(home, "shims")).catch(() => [] as string[])).sort();
  const synced = await run(["sync"]);
  problems.push(...(await checkStore(home, synced.code === 0, shimsBefore)));
  for (const args of [
    ["status", "--json"],
    ["which", "fz"],
    ["lock", "--check"],
    ["outdated"],
    ["prune", "--dry-run"],
  ])
    await run(args);
  if (index % 15 === 0 && !toml.includes("min_release_age")) {
    // The launcher users run (bin/toolmgr.js, the bundle) answers as main() does, and its process ends cleanly (a
    // release cooldown would count from the real clock there, not from NOW).
    for (const args of [["lock", "--check"], ["status"]]) {
      const inProcess = await runInProcess(args, { cwd: project, env });
      const spawned = await runProgram(process.execPath, [TOOLMGR_BIN, ...args], {
        cwd: project,
        env,
        timeout: 30_000,
      });
      if (
        spawned.code !== inProcess.code ||
        spawned.stdout !== inProcess.stdout ||
        spawned.stderr !== inProcess.stderr
      )
        problems.push(
          `bin/toolmgr.js ${args.join(" ")} differs from main(): ${JSON.stringify(spawned)} vs ${JSON.stringify(inProcess)}`,
        );
    }
  }
  if (synced.code === 0 && rng.chance(0.5))
    problems.push(...(await shimParity(rng, { project, home, root, env })));
  const edited = await readIfThere(lockPath);
  const relocked = await run(["lock"]);
  if (relocked.code !== 0 && !(edited?.equals((await readIfThere(lockPath)) ?? Buffer.alloc(0)) ?? true))
    problems.push("a failed lock changed a hand-edited toolmgr.lock");

  for (const path of await walk(root)) {
    if (
      path !== plantedFile(root) &&
      !path.startsWith(join(root, "p", "elsewhere")) &&
      !path.startsWith(join(root, "h", "fresh")) &&
      !path.startsWith(`${project}`) &&
      !path.startsWith(`${home}`) &&
      !`${project}/${home}/`.includes(`${path}/`)
    )
      problems.push(`a file outside the project and the store: ${path}`);
    // Every command has returned: a file that vanishes now belongs to work that ran on after it (a download).
    const s = await lstat(path).catch(() => undefined);
    if (s === undefined) problems.push(`${path} went away after every command had returned`);
    else if (s.isFile() && s.size < 1 << 20 && (await readFile(path)).includes(TOKEN))
      problems.push(`the token is written in ${path}`);
  }
  for (const probe of [absoluteProbe(seed), join(tmpdir(), `escaped-${seed}`)])
    if (existsSync(probe)) problems.push(`an archive wrote ${probe}`);
  if (host.leaks.length > 0) problems.push(`the token went to another origin: ${host.leaks.join("; ")}`);
  return problems.map((p) => `${label}: ${p}`);
}

test(`property fuzzing of lock and sync through the CLI (seed ${SEED}, ${CASES} cases)`, {
  timeout: 240_000,
}, async () => {
  const goodLocks: string[] = [];
  const problems: string[] = [];
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on("unhandledRejection", onRejection);
  // main() works in deps.cwd: a path resolved against the process's own directory would land in this empty one.
  const processCwd = process.cwd();
  const strayDir = await tempDir("toolmgr-fuzz-cwd-");
  process.chdir(strayDir);
  try {
    for (let i = 0; i < CASES; i++) {
      if (ONLY !== undefined && i !== ONLY) continue;
      problems.push(...(await runCase(i, goodLocks)));
    }
  } finally {
    process.off("unhandledRejection", onRejection);
    process.chdir(processCwd);
  }
  assert.deepEqual(await readdir(strayDir), [], "nothing is written relative to the process's directory");
  assert.deepEqual(rejections, [], "no rejection goes unhandled");
  // One example of each kind of problem (the kind: the property and the first line of the message).
  const kinds = new Map<string, string>();
  for (const p of problems) {
    const kind = p
      .replace(/^case \d+ \([^)]*\): /, "")
      .replace(/\d+/g, "N")
      .split("\n")
      .slice(0, 5)
      .join("|");
    if (!kinds.has(kind)) kinds.set(kind, p);
  }
  assert.equal(
    problems.length,
    0,
    `${problems.length} problems, ${kinds.size} kinds:\n${[...kinds.values()].join("\n\n")}`,
  );
  // The generators reach the paths that matter: some cases lock and install, others are refused.
  assert.ok(goodLocks.length >= CASES / 10 || ONLY !== undefined, `only ${goodLocks.length} cases locked`);
});
