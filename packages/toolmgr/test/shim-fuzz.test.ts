import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmod,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  rm,
  symlink,
  truncate,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Deps } from "../src/deps.js";
import { main } from "../src/main.js";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { Random } from "./support/fuzz-random.js";
import { runCli, runProgram } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// Differential fuzzing of a shim (real `sh` running `<store>/shims/<cmd>`) against `toolmgr exec <cmd>`, with
// `which` and `status` beside them: from a fixed seed, nested projects called from subdirectories, toolmgr.toml and
// toolmgr.lock edited (same size within the same second, other sizes, touched, replaced, removed, made a directory,
// a symlink or a FIFO), the store's project records and installs damaged, the store named by TOOLMGR_HOME or
// XDG_DATA_HOME or another empty one, the user toolset answering for what the project does not pin, PWD unset or
// wrong, names with spaces. The property (README "sync, shims, exec"): the shim runs exactly what exec runs (tool,
// argv, exit code) and refuses exactly when exec refuses, with the same message. FUZZ_SEED, FUZZ_CASES and
// FUZZ_CASE change the run (README "Tests").

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 80);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);

const HELLO = (version: string) => `platforms = ["linux/amd64"]
[tools.hello]
version = "${version}"
[tools.hello.source]
type = "github_release"
repo = "acme/hello"
asset = "hello-{version}-{os}"
bin = ["hello"]
`;

/** The project files the cases start from: registry pins the shim's awk reads, and a project-local one it hands over. */
const PROJECTS: Record<string, string> = {
  m1: 'platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n',
  m2e: 'platforms = ["linux/amd64"]\n[tools]\nmedusa = "2"\nechidna = "2"\n',
  e: 'platforms = ["linux/amd64"]\n[tools]\nechidna = "2.2"\n',
  h: HELLO("1"),
};
/** Hand edits of a project file: the same size (a digit for another), other sizes, other tools. */
const EDITS = [
  (t: string) => t.replace('"1"', '"2"'),
  (t: string) => t.replace('"2"', '"1"'),
  (t: string) => `${t}# a comment\n`,
  (t: string) => t.replace("[tools]\n", '[tools]\nechidna = "2"\n'),
  (t: string) => t.replace(/\n[a-z]+ = "[0-9.]+"\n/, "\n"),
  (t: string) => t.replace("[tools]", "[tools] # pinned"),
];
const COMMANDS = ["medusa", "echidna", "hello"];

let host: FakeCodeHost;
let base: string;
const locks = new Map<string, string>();

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("crytic/medusa");
  host.addRepo("crytic/echidna");
  host.addRepo("acme/hello");
  for (const version of ["1.0.0", "2.0.0"]) {
    host.addRelease("crytic/medusa", {
      tag: `v${version}`,
      assets: [
        { name: "medusa-linux-x64.tar.gz", data: await buildArtifact("tar.gz", { name: "medusa", version }) },
      ],
    });
    host.addRelease("acme/hello", {
      tag: `v${version}`,
      assets: [
        { name: `hello-${version}-linux`, data: await buildArtifact("raw", { name: "hello", version }) },
      ],
    });
  }
  host.addRelease("crytic/echidna", {
    tag: "v2.2.2",
    assets: [
      {
        name: "echidna-2.2.2-x86_64-linux.tar.gz",
        data: await buildArtifact("tar.gz", { name: "echidna", version: "2.2.2" }),
      },
    ],
  });
  // One store holding every install and shim; each case copies it (the records are the case's own).
  base = await tempDir("toolmgr-shimfuzz-base-");
  const env = { TOOLMGR_HOME: join(base, "store"), CODEHOST_API_URL: host.apiUrl, XDG_CONFIG_HOME: base };
  for (const [name, text] of Object.entries(PROJECTS)) {
    const dir = join(base, name);
    await mkdir(dir);
    await writeFile(join(dir, "toolmgr.toml"), text);
    for (const args of [["lock"], ["sync", "--quiet"]]) {
      const r = await runCli(args, { cwd: dir, env });
      assert.equal(r.code, 0, r.stderr);
    }
    locks.set(name, await readText(join(dir, "toolmgr.lock")));
  }
  await rm(join(base, "store", "projects"), { recursive: true });
});

after(async () => {
  await host?.close();
});

/** A file's text; "" for anything but a regular file (a FIFO made by an earlier damage must not block the harness). */
async function readText(path: string): Promise<string> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isFile() ? readFile(path, "utf8") : "";
}

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** main() in this process, as cli.ts runs it; a child `exec` starts has its output captured instead of inherited. */
async function runMain(args: readonly string[], cwd: string, env: Record<string, string>): Promise<Outcome> {
  let stdout = "";
  let stderr = "";
  const children: Promise<void>[] = [];
  const captured = ((file: string, argv: readonly string[], options: { env?: NodeJS.ProcessEnv }) => {
    const child: ChildProcess = spawn(file, argv, {
      cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    children.push(new Promise((resolve) => child.on("close", () => resolve(clearTimeout(timer)))));
    return child;
  }) as unknown as Deps["spawn"];
  const deps: Deps = {
    io: { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
    env,
    cwd,
    fetch: () => Promise.reject(new Error("no network in this fuzzer")),
    now: () => new Date(),
    runtime: { platform: "linux", arch: "x64", homedir: env.HOME ?? "/nonexistent" },
    spawn: captured,
    onSignal: () => () => {},
    processes: { pid: process.pid, isRunning: () => true },
  };
  const code = await main(args, deps);
  await Promise.all(children);
  return { code, stdout, stderr };
}

/** One generated state and call: where the projects are, what was done to them, the environment. */
interface Case {
  readonly label: string;
  readonly cwd: string;
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly shim: string;
  readonly record: string;
}

/** A file made into something else, as people and tools do to project files and store records. */
async function damageFile(
  rng: Random,
  path: string,
  text: string,
  options: { notes: string[]; record: boolean },
): Promise<void> {
  const notes = options.notes;
  // The store's records are toolmgr's own files: damaged as a crash, a full disk or a careless hand leaves them,
  // never turned into a FIFO or a link by anyone (a shim sources its answers as trusted as itself, README "Hot path").
  const all = "same-size other-size touch new-inode remove directory symlink fifo truncate chmod".split(" ");
  const kinds = all.filter((k) => !options.record || (k !== "fifo" && k !== "symlink"));
  const kind = rng.pick(kinds);
  notes.push(`${kind} ${path}`);
  // (A step that cannot apply, as writing into what an earlier step made a directory, leaves the state as it is.)
  await damage().catch(() => notes.push("(not applied)"));
  // Never opened for writing unless a regular file: a FIFO made by an earlier step would block the harness.
  const write = async (target: string, content: string) => {
    if ((await lstat(target).catch(() => undefined))?.isFile() === false) throw new Error("not a file");
    await writeFile(target, content);
  };
  async function damage(): Promise<void> {
    switch (kind) {
      case "same-size":
        await write(
          path,
          text.replace(/"1"|"2"/, (v) => (v === '"1"' ? '"2"' : '"1"')),
        );
        break;
      case "other-size":
        await write(path, rng.pick(EDITS)(text));
        break;
      case "touch":
        await utimes(path, new Date(), new Date()).catch(() => {});
        break;
      case "new-inode":
        await rm(path, { force: true, recursive: true });
        await write(path, rng.chance(0.5) ? text : rng.pick(EDITS)(text));
        break;
      case "remove":
        await rm(path, { force: true, recursive: true });
        break;
      case "directory":
        await rm(path, { force: true, recursive: true });
        await mkdir(path);
        break;
      case "symlink":
        await rm(path, { force: true, recursive: true });
        await writeFile(`${path}.target`, text);
        await symlink(`${path}.target`, path);
        break;
      case "fifo":
        await rm(path, { force: true, recursive: true });
        execFileSync("mkfifo", [path]);
        break;
      case "truncate":
        await truncate(path, rng.int(0, text.length)).catch(() => {});
        break;
      case "chmod":
        await chmod(path, rng.pick([0, 0o200, 0o444])).catch(() => {});
        break;
    }
  }
}

async function makeCase(i: number): Promise<Case> {
  const rng = new Random(SEED + i);
  const notes: string[] = [];
  const root = await tempDir("toolmgr-shimfuzz-");
  // The store: TOOLMGR_HOME, or XDG_DATA_HOME's toolmgr, or HOME's .local/share/toolmgr.
  const homeDir = join(root, "home dir");
  const how = rng.pick(["TOOLMGR_HOME", "XDG_DATA_HOME", "HOME"]);
  const data = join(root, "data");
  const home =
    how === "TOOLMGR_HOME"
      ? join(root, "st ore")
      : how === "XDG_DATA_HOME"
        ? join(data, "toolmgr")
        : join(homeDir, ".local/share/toolmgr");
  await mkdir(home, { recursive: true });
  await cp(join(base, "store", "tools"), join(home, "tools"), { recursive: true });
  await cp(join(base, "store", "shims"), join(home, "shims"), { recursive: true });
  const config = join(root, "config");
  const env: Record<string, string> = { HOME: homeDir, XDG_CONFIG_HOME: config };
  if (how === "TOOLMGR_HOME") env.TOOLMGR_HOME = home;
  if (how === "XDG_DATA_HOME") env.XDG_DATA_HOME = data;
  notes.push(`store by ${how}`);

  // Projects: an outer one, maybe one nested in it, maybe the user toolset.
  const outer = join(root, rng.pick(["p", "a b", "it's", "x\ty"]));
  const outerKind = rng.pick(Object.keys(PROJECTS));
  const inner = join(outer, rng.pick(["sub", "sub dir"]), "inner");
  const nested = rng.chance(0.4);
  const innerKind = rng.pick(Object.keys(PROJECTS));
  const userKind = rng.chance(0.5) ? rng.pick(["e", "m1"]) : undefined;
  const files: { toml: string; lock: string; kind: string }[] = [];
  const place = async (dir: string, kind: string) => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "toolmgr.toml"), PROJECTS[kind] ?? "");
    await writeFile(join(dir, "toolmgr.lock"), locks.get(kind) ?? "");
    files.push({ toml: join(dir, "toolmgr.toml"), lock: join(dir, "toolmgr.lock"), kind });
  };
  await place(outer, outerKind);
  if (nested) await place(inner, innerKind);
  if (userKind !== undefined) await place(join(config, "toolmgr"), userKind);
  notes.push(
    `outer ${outerKind}${nested ? `, inner ${innerKind}` : ""}${userKind ? `, user ${userKind}` : ""}`,
  );
  await mkdir(join(outer, "sub dir", "deep"), { recursive: true });
  await mkdir(join(root, "outside"), { recursive: true });
  const cwd = rng.pick([
    outer,
    join(outer, "sub dir", "deep"),
    ...(nested ? [inner, join(inner, "..")] : []),
    join(root, "outside"),
  ]);
  const command = rng.pick(COMMANDS);
  const args = rng.pick([[], ["a b"], ["--version", "x", ""], ["$HOME", "'q'", "*"]]);
  notes.push(`${command} in ${cwd.slice(root.length) || "/"}`);

  // A first run records the project (as exec does when it finds it current), so the hot path has a record to trust.
  const env0 = { ...env, PATH: "/usr/bin:/bin" };
  if (rng.chance(0.8)) await runMain(["exec", rng.pick(COMMANDS)], cwd, env0);
  if (rng.chance(0.3))
    await runMain(["exec", rng.pick(COMMANDS)], rng.pick([outer, join(root, "outside")]), env0);

  // Within the same second as the record: what the hot path's times must tell apart.
  for (let n = rng.int(0, 3); n > 0; n--) {
    const target = rng.pick(files);
    const which = rng.pick(["project", "record", "install"]);
    if (which === "project") {
      const lock = rng.chance(0.5);
      await damageFile(
        rng,
        lock ? target.lock : target.toml,
        (lock ? locks.get(target.kind) : PROJECTS[target.kind]) ?? "",
        {
          notes,
          record: false,
        },
      );
    } else if (which === "record") {
      const dir = join(home, "projects", target.toml.slice(0, -"/toolmgr.toml".length));
      // The record's own files (a nested project's record is a directory beside them).
      const names = (await readdir(dir, { withFileTypes: true }).catch(() => []))
        .filter(
          (e) =>
            !e.isDirectory() ||
            (!e.name.includes(" ") && e.name.startsWith("toolmgr")) ||
            e.name.startsWith("shim"),
        )
        .map((e) => e.name);
      if (names.length === 0) continue;
      const name = rng.pick(names);
      await damageFile(rng, join(dir, name), (await readText(join(dir, name)).catch(() => "")) || "x\n", {
        notes,
        record: true,
      });
    } else {
      const tools = await readdir(join(home, "tools"));
      const tool = rng.pick(tools);
      const installs = await readdir(join(home, "tools", tool));
      if (installs.length === 0) continue;
      const install = join(home, "tools", tool, rng.pick(installs));
      const what = rng.pick(["marker", "exe", "chmod", "dir"]);
      notes.push(`install ${tool} ${what}`);
      if (what === "marker") await rm(join(install, ".toolmgr-install"), { force: true });
      else if (what === "exe") await rm(join(install, tool), { force: true });
      else if (what === "chmod") await chmod(join(install, tool), 0o644).catch(() => {});
      else await rm(install, { recursive: true, force: true });
    }
  }

  // The call's environment: another (empty) store, PWD unset or wrong, a fallback of each command later on PATH.
  const shims = join(home, "shims");
  const fallback = join(root, "fallback");
  await mkdir(fallback);
  for (const c of COMMANDS)
    await writeFile(join(fallback, c), `#!/bin/sh\necho "fallback ${c} $*"\n`, { mode: 0o755 });
  env.PATH = `${shims}:/usr/bin:/bin${rng.chance(0.6) ? `:${fallback}` : ""}`;
  if (rng.chance(0.1)) {
    env.TOOLMGR_HOME = join(root, "other store");
    notes.push("another TOOLMGR_HOME");
  }
  const pwd = rng.pick(["right", "right", "unset", "wrong"]);
  if (pwd === "right") env.PWD = cwd;
  if (pwd === "wrong") env.PWD = root;
  notes.push(`PWD ${pwd}`);
  return {
    label: `case ${i} (seed ${SEED + i}; ${notes.join("; ")})`,
    cwd,
    command,
    args,
    env,
    shim: join(shims, command),
    record: join(home, "projects"),
  };
}

/**
 * The differences README "sync, shims, exec" documents, in the same verdict and exit code: nothing to run (the shim
 * names the project walk, exec the PATH lookup), a lock entry the shim's awk refuses in its own words where
 * parseLockfile names the TOML error, and sh's diagnostics on a record's answers cut short.
 */
function documentedDifference(shim: Outcome, exec: Outcome, answersCut: boolean): boolean {
  if (shim.code !== exec.code) return false;
  // A record's shim-answers.sh cut short (a damaged store only: it is written by rename) is sourced by the hot path,
  // as trusted as the shim itself (as a FIFO put there is waited on): sh names what it makes of the cut line (a
  // syntax error, `[: missing ]`, a command not found), then the full check decides as exec does. It never runs
  // more: a cut drops `_tm_fast=1`, the answers' last line.
  const noise = /^(?!toolmgr: ).*\n/gm;
  if (answersCut && shim.stdout === exec.stdout && shim.stderr.replace(noise, "") === exec.stderr)
    return true;
  if (shim.stdout !== "" || exec.stdout !== "") return false;
  if (shim.code === 127)
    return (
      /^toolmgr: \S+ is not pinned in any toolmgr\.lock above .*, and no other \S+ is on PATH\n$/.test(
        shim.stderr,
      ) && /^toolmgr: cannot run "\S+": not found on PATH\n$/.test(exec.stderr)
    );
  return (
    shim.code === 1 &&
    / has an invalid entry \(a name, version, digest or executable path that would leave the store\)/.test(
      shim.stderr,
    ) &&
    /^toolmgr: Cannot parse lock: /.test(exec.stderr)
  );
}

async function runCase(i: number): Promise<string[]> {
  const c = await makeCase(i);
  if (process.env.FUZZ_VERBOSE) process.stderr.write(`${c.label}\n`);
  const problems: string[] = [];
  const viaShim = await runProgram(c.shim, c.args, { cwd: c.cwd, env: c.env, timeout: 15_000 });
  const viaExec = await runMain(["exec", c.command, ...c.args], c.cwd, c.env);
  if (
    (viaShim.code !== viaExec.code ||
      viaShim.stdout !== viaExec.stdout ||
      viaShim.stderr !== viaExec.stderr) &&
    !documentedDifference(viaShim, viaExec, /truncate [^;]*\/shim-answers\.sh;/.test(c.label))
  )
    problems.push(
      `the shim and exec differ\n    shim: ${JSON.stringify(viaShim)}\n    exec: ${JSON.stringify(viaExec)}`,
    );
  // which names what exec runs: the pinned install, or the command on PATH, or refuses as exec refuses.
  const which = await runMain(["which", c.command], c.cwd, c.env);
  const ran = /^(medusa|echidna|hello) (\S+) /.exec(viaExec.stdout);
  if (viaExec.code === 0 && ran !== null && !which.stdout.includes(`/tools/${ran[1]}/${ran[2]}-`))
    problems.push(
      `which does not name what exec ran\n    which: ${JSON.stringify(which)}\n    exec: ${JSON.stringify(viaExec)}`,
    );
  if (viaExec.code === 0 && viaExec.stdout.startsWith("fallback") && !which.stdout.includes("/fallback/"))
    problems.push(`which does not name the fallback exec ran\n    which: ${JSON.stringify(which)}`);
  if (viaExec.code === 1 && (which.code !== 1 || which.stderr !== viaExec.stderr))
    problems.push(
      `which does not refuse as exec refuses\n    which: ${JSON.stringify(which)}\n    exec: ${JSON.stringify(viaExec)}`,
    );
  const status = await runMain(["status"], c.cwd, c.env);
  if (
    ![0, 1, 3].includes(status.code ?? -1) ||
    /\bat .+:\d+|undefined|\[object/.test(status.stderr + status.stdout)
  )
    problems.push(`status answers oddly: ${JSON.stringify(status)}`);
  return problems.map((p) => `${c.label}: ${p}`);
}

test(`a shim runs and refuses exactly as toolmgr exec (seed ${SEED}, ${CASES} generated states)`, {
  // A second a state at most (about 0.1 s each on this machine), so FUZZ_CASES may raise the count.
  timeout: 60_000 + CASES * 1_000,
}, async () => {
  const problems: string[] = [];
  for (let i = 0; i < CASES; i++) {
    if (ONLY !== undefined && i !== ONLY) continue;
    problems.push(...(await runCase(i)));
  }
  assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 8).join("\n\n")}`);
});
