import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { makeProject, type Project } from "./support/lock-harness.js";
import { runCli, TOOLMGR_BIN } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;
let project: Project;

const toml = `[tools.hello]
version = "1"
[tools.hello.source]
type = "github_release"
repo = "acme/hello"
asset = "hello-{version}-{os}"
bin = ["hello"]
platforms = ["linux/amd64"]
`;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/hello");
  host.addRelease("acme/hello", {
    tag: "v1.0.0",
    assets: [
      { name: "hello-1.0.0-linux", data: await buildArtifact("raw", { name: "hello", version: "1.0.0" }) },
    ],
  });
  project = await makeProject(host, toml);
  assert.equal((await project.run(["lock"])).code, 0);
  assert.equal((await project.run(["sync"])).code, 0);
});

after(async () => {
  await host.close();
});

const env = () => ({ TOOLMGR_HOME: project.home, CODEHOST_API_URL: "http://127.0.0.1:9" });

test("toolmgr exec puts the pinned tools first on PATH and passes the exit status through", async () => {
  const direct = await runCli(["exec", "hello", "--version", "x"], { cwd: project.dir, env: env() });
  assert.equal(direct.stdout, "hello 1.0.0 --version x\n");
  assert.equal(direct.code, 0);
  // `--` separates toolmgr's arguments from the command's, as the peer's users write it.
  const separated = await runCli(["exec", "--", "hello", "--", "--version"], {
    cwd: project.dir,
    env: env(),
  });
  assert.equal(separated.stdout, "hello 1.0.0 -- --version\n");
  const script = await runCli(["exec", "sh", "-c", "hello from-script; exit 7"], {
    cwd: project.dir,
    env: env(),
  });
  assert.equal(script.stdout, "hello 1.0.0 from-script\n");
  assert.equal(script.code, 7);
});

test("toolmgr exec outside a project runs the command from PATH without the shims directory", async () => {
  const outside = await tempDir("toolmgr-outside-");
  const shims = join(project.home, "shims");
  const r = await runCli(["exec", "sh", "-c", 'echo "$PATH"; exit 5'], {
    cwd: outside,
    env: { ...env(), PATH: `${shims}:/usr/bin:/bin` },
  });
  assert.equal(r.code, 5, r.stderr);
  assert.equal(r.stdout, "/usr/bin:/bin\n");
  const missing = await runCli(["exec", "no-such-command-here"], { cwd: outside, env: env() });
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /cannot run "no-such-command-here": not found on PATH/);
});

test("toolmgr exec forwards SIGTERM to the child and exits 128 + signal", async () => {
  // `exec sleep`: the SIGTERM reaches sleep itself. With a plain `sleep`, dash runs it as its child, which outlives
  // sh, holds the output pipe open and kept this test waiting its 30 s for "close".
  const child = spawn(process.execPath, [TOOLMGR_BIN, "exec", "sh", "-c", "echo ready; exec sleep 30"], {
    cwd: project.dir,
    env: { ...process.env, ...env() },
  });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill("SIGTERM");
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.equal(code, 143);
});

test("a SIGTERM that arrives while exec starts the child is passed on to it, not lost", async () => {
  // The handlers must be there before the child runs: a signal sent the moment the child is up (it may already have
  // said "ready") would otherwise end toolmgr by the default action and orphan the child (block signal.atago.yaml).
  const handlers = new Map<string, () => void>();
  const sent: string[] = [];
  const signalling = await makeProject(host, toml, {
    onSignal: (signal, handler) => {
      handlers.set(signal, handler);
      return () => handlers.delete(signal);
    },
    spawn: ((command: string, args: readonly string[], options: object) => {
      handlers.get("SIGTERM")?.(); // the signal arrives while the child is being started
      const child = spawn(command, args, options);
      const kill = child.kill.bind(child);
      child.kill = (signal?: NodeJS.Signals | number) => {
        sent.push(String(signal));
        return kill(signal);
      };
      return child;
    }) as typeof spawn,
  });
  await writeFile(
    join(signalling.dir, "toolmgr.lock"),
    await readFile(join(project.dir, "toolmgr.lock"), "utf8"),
  );
  const r = await signalling.run(["exec", "sh", "-c", "exec sleep 5"], { TOOLMGR_HOME: project.home });
  assert.deepEqual(sent, ["SIGTERM"]);
  assert.equal(r.code, 143, "the child ended by the forwarded SIGTERM, well before its 5 s");
  assert.equal(handlers.size, 0, "the handlers are removed afterwards");
});

test("toolmgr exec forwards SIGINT once; a child that handles it and exits 0 leaves toolmgr's status 0", async () => {
  const script = 'trap "echo got-int; exit 0" INT; echo ready; while :; do sleep 0.05; done';
  const child = spawn(process.execPath, [TOOLMGR_BIN, "exec", "sh", "-c", script], {
    cwd: project.dir,
    env: { ...process.env, ...env() },
  });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill("SIGINT");
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.equal(code, 0);
  assert.equal(stdout, "ready\ngot-int\n");
});

test("toolmgr which prints the install path; status reports each tool", async () => {
  const which = await runCli(["which", "hello"], { cwd: project.dir, env: env() });
  assert.equal(which.code, 0);
  assert.match(which.stdout, new RegExp(`^${project.home}/tools/hello/1\\.0\\.0-[0-9a-f]{12}/hello\\n$`));
  const aside = await runCli(["which", "ls"], {
    cwd: project.dir,
    env: { ...env(), PATH: `${join(project.home, "shims")}:/usr/bin:/bin` },
  });
  assert.equal(aside.code, 0, aside.stderr);
  // The next ls on that PATH: /usr/bin/ls on merged-/usr systems, /bin/ls elsewhere (macOS, older layouts).
  assert.equal(aside.stdout, `${["/usr/bin/ls", "/bin/ls"].find((p) => existsSync(p))}\n`);
  assert.match(aside.stderr, /it is not pinned in .*toolmgr\.lock; the "ls" shim steps aside/);
  const none = await runCli(["which", "no-such-tool"], { cwd: project.dir, env: env() });
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /Cannot find "no-such-tool": it is not pinned in .*, and no other "no-such-tool" is on PATH/,
  );
  const outside = await runCli(["which", "hello"], {
    cwd: tmpdir(),
    env: { ...env(), PATH: "/usr/bin:/bin" },
  });
  assert.equal(outside.code, 1);
  assert.match(outside.stderr, /there is no toolmgr\.toml above/);
  const status = await runCli(["status", "--json"], { cwd: project.dir, env: env() });
  assert.deepEqual(JSON.parse(status.stdout), [
    { name: "hello", constraint: "1", version: "1.0.0", installed: true, stale: false },
  ]);
});

test("toolmgr exec refuses a damaged install and a stale lock, naming the fix", async () => {
  const p = await makeProject(host, toml);
  await p.run(["lock"]);
  await p.run(["sync"]);
  const which = await runCli(["which", "hello"], { cwd: p.dir, env: { TOOLMGR_HOME: p.home } });
  await rm(which.stdout.trim());
  const damaged = await runCli(["exec", "hello"], { cwd: p.dir, env: { TOOLMGR_HOME: p.home } });
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stderr,
    /"hello" 1\.0\.0 is damaged: the executable "hello" is missing; run `toolmgr sync`/,
  );
  assert.equal((await p.run(["sync"])).code, 0, "sync replaces a damaged install");
  await writeFile(join(p.dir, "toolmgr.toml"), toml.replace('version = "1"', 'version = "2"'));
  const stale = await runCli(["exec", "hello"], { cwd: p.dir, env: { TOOLMGR_HOME: p.home } });
  assert.equal(stale.code, 1);
  assert.match(
    stale.stderr,
    /out of date:\n {2}hello: locked for "1" but toolmgr\.toml asks for "2"; run `toolmgr lock`/,
  );
});
