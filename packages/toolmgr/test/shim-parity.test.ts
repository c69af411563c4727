import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli, runProgram, TOOLMGR_BIN } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// Issue 10: "Shims do exactly what exec does for their one command" — so each case below runs the shim and
// `toolmgr exec` side by side and expects the same exit code and the same message. Shims are written by the built
// CLI, so a shim that hands over to `toolmgr exec` starts this very build.

const execFileP = promisify(execFile);
let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  // `medusa` is a registry recipe (crytic/medusa, asset medusa-{os}-{arch}.tar.gz with amd64 named x64).
  host.addRepo("crytic/medusa");
  host.addRepo("acme/hello");
  for (const version of ["1.0.0", "2.0.0"]) {
    host.addRelease("crytic/medusa", {
      tag: `v${version}`,
      assets: [
        { name: "medusa-linux-x64.tar.gz", data: await buildArtifact("tar.gz", { name: "medusa", version }) },
        { name: "medusa-mac-arm64.tar.gz", data: Buffer.from(`medusa ${version} mac`) },
      ],
    });
    host.addRelease("acme/hello", {
      tag: `v${version}`,
      assets: [
        { name: `hello-${version}-linux`, data: await buildArtifact("raw", { name: "hello", version }) },
      ],
    });
  }
});

after(async () => {
  await host.close();
});

const HELLO = (version: string, extra = "") => `[tools.hello]
version = "${version}"
[tools.hello.source]
type = "github_release"
repo = "acme/hello"
asset = "hello-{version}-{os}"
bin = ["hello"]
platforms = ["linux/amd64"]
${extra}`;

async function project(toml: string) {
  const dir = await tempDir("toolmgr-parity-");
  const home = await tempDir("toolmgr-parity-home-");
  const write = (text: string) => writeFile(join(dir, "toolmgr.toml"), text);
  await write(toml);
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });
  const shims = join(home, "shims");
  // The shim runs with a bare environment: the store in TOOLMGR_HOME (read at run time, as exec reads it), the shims
  // first on PATH.
  const shim = (command: string, ...args: string[]) =>
    runProgram(join(shims, command), args, {
      cwd: dir,
      env: { TOOLMGR_HOME: dirname(shims), PATH: `${shims}:/usr/bin:/bin` },
    });
  /** Runs the shim and `toolmgr exec` and checks they agree; returns the shim's result. */
  const both = async (command: string, ...args: string[]) => {
    const viaShim = await shim(command, ...args);
    const viaExec = await cli("exec", command, ...args);
    assert.deepEqual(viaShim, { code: viaExec.code, stdout: viaExec.stdout, stderr: viaExec.stderr });
    return viaShim;
  };
  return { dir, home, write, cli, shim, both };
}

test("a shim refuses a stale lock exactly as toolmgr exec does, deciding registry pins without Node", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  const synced = await p.cli("sync");
  assert.equal(synced.code, 0, synced.stderr);
  // Without the record of the last verified project file, the shim's own reading of the files decides.
  await rm(join(p.home, "projects"), { recursive: true });
  assert.equal((await p.both("medusa", "run")).stdout, "medusa 1.0.0 run\n");

  await p.write('platforms = ["linux/amd64"]\n[tools]\nmedusa = "2" # newer\n');
  const moved = await p.both("medusa");
  assert.equal(moved.code, 1);
  assert.match(
    moved.stderr,
    /out of date:\n {2}medusa: locked for "1" but toolmgr\.toml asks for "2"; run `toolmgr lock`\n$/,
  );

  await p.write('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\nsolc = "0.8"\n');
  assert.match((await p.both("medusa")).stderr, /\n {2}solc: not in toolmgr\.lock; run `toolmgr lock`\n$/);

  await p.write('platforms = ["linux/amd64"]\n[tools]\n');
  const dropped = await p.both("medusa");
  assert.equal(dropped.code, 1);
  assert.match(dropped.stderr, /\n {2}medusa: no longer in toolmgr\.toml; run `toolmgr lock`\n$/);

  // A lock without this machine's artifact (locked for another platform only).
  await p.write('platforms = ["darwin/arm64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  const other = await p.both("medusa");
  assert.equal(other.code, 1);
  assert.match(
    other.stderr,
    /medusa: the lock has no artifact for linux\/amd64; add "linux\/amd64" to platforms/,
  );

  // Back to a current lock: the shim runs the pin again.
  await p.write('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.both("medusa", "x")).stdout, "medusa 1.0.0 x\n");
});

test("a changed project-local source makes the shim hand over to toolmgr exec, which refuses the stale pin", async () => {
  const p = await project(HELLO("1"));
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  assert.equal((await p.both("hello", "a")).stdout, "hello 1.0.0 a\n");
  assert.deepEqual(
    await readdir(join(p.home, "projects")),
    [p.dir.split("/")[1]],
    "sync recorded the project",
  );

  // Same version, another definition: only the fingerprint shows it.
  await p.write(HELLO("1", "strip_components = 0\ntag_prefix = 'v'\n"));
  assert.equal((await p.both("hello")).code, 0, "spelling out defaults keeps the fingerprint");
  await p.write(HELLO("1", 'os = { linux = "Linux" }\n'));
  const stale = await p.both("hello");
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /hello: its source definition changed since it was locked; run `toolmgr lock`/);

  await p.write(HELLO("1"));
  assert.equal((await p.both("hello", "b")).stdout, "hello 1.0.0 b\n");
});

test("a shim, like toolmgr exec, needs a lock beside the project file and every pinned install whole", async () => {
  const p = await project(`platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n${HELLO("2")}`);
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  assert.equal((await p.both("medusa")).stdout, "medusa 1.0.0 \n");

  const [install = ""] = await readdir(join(p.home, "tools", "hello"));
  await rm(join(p.home, "tools", "hello", install, "hello"));
  const damaged = await p.both("medusa");
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stderr,
    /^toolmgr: "hello" 2\.0\.0 is damaged: the executable "hello" is missing; run `toolmgr sync`\n$/,
  );

  await rm(join(p.dir, "toolmgr.lock"));
  const unlocked = await p.both("medusa");
  assert.equal(unlocked.code, 1);
  assert.match(unlocked.stderr, /^toolmgr: Cannot find .*toolmgr\.lock: run `toolmgr lock` first\n$/);
});

test("a completion marker that is not a regular file is no marker, for the shim as for toolmgr exec", async () => {
  const p = await project(`platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n${HELLO("2")}`);
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  assert.equal((await p.both("medusa")).code, 0);

  const [install = ""] = await readdir(join(p.home, "tools", "hello"));
  const marker = join(p.home, "tools", "hello", install, ".toolmgr-install");
  await rm(marker);
  await mkdir(marker);
  const damaged = await p.both("medusa");
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stderr,
    /^toolmgr: "hello" 2\.0\.0 is damaged: its completion marker is missing; run `toolmgr sync`\n$/,
  );
  // sync takes it for the damage it is and installs the tool again.
  assert.equal((await p.cli("sync")).code, 0);
  assert.equal((await stat(marker)).isFile(), true);
  assert.equal((await p.both("medusa")).code, 0);
});

test("a project reached through a symbolic link is recorded under the path the shell uses too", async () => {
  const base = await tempDir("toolmgr-parity-real-");
  const real = join(base, "real");
  await mkdir(real);
  const link = join(base, "link");
  await symlink(real, link);
  const home = await tempDir("toolmgr-parity-home-");
  await mkdir(join(real, "sub"));
  await writeFile(join(real, "toolmgr.toml"), HELLO("1"));
  // The shell keeps the link in $PWD; Node's working directory is the real path.
  const env = {
    CODEHOST_API_URL: host.apiUrl,
    TOOLMGR_HOME: home,
    CODEHOST_TOKEN: "",
    PWD: join(link, "sub"),
  };
  assert.equal((await runCli(["lock"], { cwd: join(link, "sub"), env })).code, 0);
  assert.equal((await runCli(["sync"], { cwd: join(link, "sub"), env })).code, 0);
  await stat(join(home, "projects", real, "toolmgr.lock"));
  await stat(join(home, "projects", link, "toolmgr.toml"));
  const shims = join(home, "shims");
  const r = await execFileP(join(shims, "hello"), ["x"], {
    cwd: join(link, "sub"),
    env: { TOOLMGR_HOME: dirname(shims), PATH: `${shims}:/usr/bin:/bin`, PWD: join(link, "sub") },
  });
  assert.equal(r.stdout, "hello 1.0.0 x\n");
});

test("a shim whose record copies are directories checks the files itself, as exec does (and exec repairs them)", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  const record = join(p.home, "projects", p.dir);
  // The project file changed (the hot path cannot answer) and the record's copy of it is a directory: mawk stopped
  // with "read error (Is a directory)" on it.
  for (const name of ["toolmgr.toml", "toolmgr.lock", "shim-answers"]) {
    await p.write(`platforms = ["linux/amd64"]\n[tools]\nmedusa = "1" # not ${name}\n`);
    await rm(join(record, name), { force: true });
    await mkdir(join(record, name));
    assert.equal((await p.shim("medusa", "x")).stdout, "medusa 1.0.0 x\n", name);
    assert.equal((await p.both("medusa", "y")).stdout, "medusa 1.0.0 y\n", name);
    assert.ok((await stat(join(record, name))).isFile(), `exec wrote ${name} again`);
  }
});

test("a shim hands a lock cut short to toolmgr exec, which names what is wrong", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\nsolc = "0.8"\n');
  await p.write('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  const lockPath = join(p.dir, "toolmgr.lock");
  const whole = await readFile(lockPath, "utf8");
  // Cut in the middle of the digest: awk read the 12 digits it needs and ran the tool exec refuses.
  const cuts = [whole.indexOf("sha256") + 30, whole.indexOf("sha256"), whole.indexOf("url ="), 0];
  for (const cut of cuts) {
    await writeFile(lockPath, whole.slice(0, cut));
    const r = await p.both("medusa");
    assert.equal(r.code, 1, `cut at ${cut}`);
    assert.match(r.stderr, /^toolmgr: Cannot parse lock: /, `cut at ${cut}`);
  }
  await writeFile(lockPath, whole);
  assert.equal((await p.both("medusa", "z")).stdout, "medusa 1.0.0 z\n");
});

test("exec does not wait on a FIFO where the record's shim answers belong, and writes them again", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  const fragment = join(p.home, "projects", p.dir, "shim-answers.sh");
  await rm(fragment);
  await execFileP("mkfifo", [fragment]);
  // (The project's files are unchanged: exec found the record older than them and read the answers to compare.)
  const r = await runProgram(process.execPath, [TOOLMGR_BIN, "exec", "medusa", "a"], {
    cwd: p.dir,
    env: { TOOLMGR_HOME: p.home, PATH: "/usr/bin:/bin" },
    timeout: 8_000,
  });
  assert.deepEqual(r, { code: 0, stdout: "medusa 1.0.0 a\n", stderr: "" });
  assert.ok((await stat(fragment)).isFile());
  assert.equal((await p.both("medusa", "b")).stdout, "medusa 1.0.0 b\n");
});

test("a shim checks the recorded answers against the lock: a copy cut short answers nothing", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  const answers = join(p.home, "projects", p.dir, "shim-answers");
  const whole = await readFile(answers, "utf8");
  // The hot path cannot answer (another inode for toolmgr.toml, same text): the copies decide.
  const text = await readFile(join(p.dir, "toolmgr.toml"), "utf8");
  await rm(join(p.dir, "toolmgr.toml"));
  await p.write(text);
  // Cut inside the pin's line (it named a tool "T"), after the platform line (no pin: it stepped aside), and inside
  // the executable's path (still four fields: it ran "medus", which is not there).
  for (const cut of [whole.indexOf("\t") + 3, whole.indexOf("\n") + 1, whole.lastIndexOf("\t") + 5]) {
    await writeFile(answers, whole.slice(0, cut));
    assert.equal((await p.shim("medusa", "x")).stdout, "medusa 1.0.0 x\n", `cut at ${cut}`);
  }
});

test("a shim refuses a project file with an unterminated array in exec's words", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  await p.write('platforms = ["linux');
  const r = await p.both("medusa");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^toolmgr: Cannot parse .*toolmgr\.toml:1:\d+: unfinished string/);
});

test("a shim names a project file cut short before a lock that is missing or not a file, as exec does", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  await p.write('platforms = ["linux/amd64"]\n[tools');
  const lockPath = join(p.dir, "toolmgr.lock");
  // exec (and lock --check, status, sync) parse the project file before they read the lock: its error comes first.
  for (const make of [() => mkdir(lockPath), () => execFileP("mkfifo", [lockPath]), async () => {}]) {
    await rm(lockPath, { recursive: true, force: true });
    await make();
    const r = await p.both("medusa");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^toolmgr: Cannot parse .*toolmgr\.toml:2:\d+: /);
  }
  // A whole project file: the lock is what is wrong, in the same words.
  await p.write('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  await rm(lockPath, { force: true });
  await mkdir(lockPath);
  assert.match(
    (await p.both("medusa")).stderr,
    /^toolmgr: Cannot read .*toolmgr\.lock: it is a directory, not a regular file\n$/,
  );
});
