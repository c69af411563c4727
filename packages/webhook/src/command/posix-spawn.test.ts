import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import koffi from "koffi";
import { shRequest as sh } from "../../test/support/sh-request.js";
import { koffiPin } from "./bind-libc.js";
import { killGroup } from "./kill-group.js";
import { createPosixSpawn, exitError } from "./posix-spawn.js";

const run = createPosixSpawn({
  libc: koffi.load("libc.so.6"),
  errno: () => koffi.errno(),
  onChildExit: (listener) => process.on("SIGCHLD", listener),
  killGroup,
});

test("stdout and stderr are merged in order; stdin is empty; the working directory is the request's", async () => {
  const ok = await run(sh("echo out; sleep 0.1; echo err >&2; cat; pwd", { cwd: "/usr" }));
  assert.deepEqual(ok, { output: Buffer.from("out\nerr\n/usr\n") });
});

test("exit codes and signals read as Go's exec errors", async () => {
  assert.equal((await run(sh("exit 3"))).error, "exit status 3");
  assert.equal((await run(sh("kill -9 $$"))).error, "signal: killed");
  assert.equal((await run(sh("kill -HUP $$"))).error, "signal: hangup");
});

test("argv[0], the environment and the signal dispositions are the child's own", async () => {
  const r = await run({
    path: "/bin/sh",
    argv0: "hook-name",
    args: [
      "-c",
      'tr "\\0" " " < /proc/$$/cmdline; echo; echo "$ONLY"; env | wc -l; grep SigIgn /proc/$$/status',
    ],
    env: { ONLY: "one var" },
    cwd: "/",
    timeout: 0,
  });
  // node ignores SIGPIPE; the command must not inherit that (Go's children do not).
  const lines = r.output.toString().split("\n");
  assert.equal(
    lines[0],
    `hook-name -c ${'tr "\\0" " " < /proc/$$/cmdline; echo; echo "$ONLY"; env | wc -l; grep SigIgn /proc/$$/status'} `,
  );
  assert.equal(lines[1], "one var");
  assert.ok(Number(lines[2]) <= 3, `env holds only what was given (and sh's own PWD), got ${lines[2]}`);
  assert.match(lines[3] ?? "", /^SigIgn:\s+0+$/);
});

test("an environment used again (copied once into fixed memory) reaches every run whole, beside other ones", async () => {
  const pinned = createPosixSpawn({
    libc: koffi.load("libc.so.6"),
    errno: () => koffi.errno(),
    onChildExit: (listener) => process.on("SIGCHLD", listener),
    killGroup,
    pin: koffiPin(koffi),
  });
  const env = { PATH: "/usr/bin:/bin", A: "1", B: "two words", EMPTY: "" };
  const script = "env | grep -E '^(A|B|EMPTY|C)=' | sort";
  const outputs: string[] = [];
  for (let i = 0; i < 4; i++) {
    outputs.push((await pinned(sh(script, { env }))).output.toString());
    outputs.push((await pinned(sh(script, { env: { ...env, C: `${i}` } }))).output.toString());
  }
  const common = "A=1\nB=two words\nEMPTY=\n";
  assert.deepEqual(
    outputs,
    [0, 1, 2, 3].flatMap((i) => [common, `A=1\nB=two words\nC=${i}\nEMPTY=\n`]),
  );
  const bad = { A: "x\u0000y" };
  for (let i = 0; i < 3; i++)
    assert.equal((await pinned(sh("true", { env: bad }))).error, "fork/exec /bin/sh: invalid argument");
});

test("arguments reach the program unchanged: no shell", async () => {
  const r = await run({ ...sh(""), path: "/bin/echo", argv0: "echo", args: ["$HOME", "a b", "`x`;|"] });
  assert.deepEqual(r, { output: Buffer.from("$HOME a b `x`;|\n") });
});

test("a NUL byte in an argument or the environment fails like Go's exec", async () => {
  const bad = { output: Buffer.alloc(0), error: "fork/exec /bin/sh: invalid argument" };
  assert.deepEqual(await run({ ...sh("true"), args: ["a\u0000b"] }), bad);
  assert.deepEqual(await run({ ...sh("true"), env: { A: "x\u0000y" } }), bad);
});

test("programs that cannot start fail with Go's texts, and nothing runs through /bin/sh", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "posix-spawn-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const script = join(dir, "no-shebang");
  await writeFile(script, `touch ${join(dir, "ran")}\n`);
  await chmod(script, 0o755);
  assert.deepEqual(await run({ ...sh(""), path: script, args: [] }), {
    output: Buffer.alloc(0),
    error: `fork/exec ${script}: exec format error`,
  });
  assert.equal(
    (await run({ ...sh(""), path: "/nonexistent/x" })).error,
    "fork/exec /nonexistent/x: no such file or directory",
  );
  assert.equal((await run(sh("true", { cwd: "/etc/hostname" }))).error, "fork/exec /bin/sh: not a directory");
  assert.equal((await run(sh(`test -e ${join(dir, "ran")} && echo ran`))).output.toString(), "");
});

test("the timeout stops the command's whole process group", async () => {
  const started = Date.now();
  const r = await run(sh("sleep 30 & wait", { timeout: 0.2 }));
  assert.equal(r.error, "signal: terminated");
  assert.ok(Date.now() - started < 10_000);
});

test("a command that closes its output early is still waited for", async () => {
  const r = await run(sh("exec >&- 2>&-; sleep 0.3; exit 4"));
  assert.deepEqual(r, { output: Buffer.alloc(0), error: "exit status 4" });
});

test("output larger than the pipe arrives whole, written fast or a little at a time", async () => {
  const big = await run(sh("head -c 5000000 /dev/zero; echo end"));
  assert.equal(big.output.length, 5_000_004);
  assert.equal(big.output.subarray(-4).toString(), "end\n");
  const trickle = await run(sh("for i in 1 2 3 4 5; do echo $i; sleep 0.03; done"));
  assert.equal(trickle.output.toString(), "1\n2\n3\n4\n5\n");
});

test("output from something the command left running is waited for, as Go's CombinedOutput waits", async () => {
  const r = await run(sh("(sleep 0.2; echo late) & echo early"));
  assert.deepEqual(r, { output: Buffer.from("early\nlate\n") });
});

test("many commands at once (past koffi's 64 calls in flight) each get their own output and status", async () => {
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => run(sh(`echo ${i}; exit ${i % 3}`))),
  );
  results.forEach((r, i) => {
    assert.equal(r.output.toString(), `${i}\n`);
    assert.equal(r.error, i % 3 === 0 ? undefined : `exit status ${i % 3}`);
  });
});

test("exitError decodes waitpid statuses", () => {
  assert.equal(exitError(0), undefined);
  assert.equal(exitError(3 << 8), "exit status 3");
  assert.equal(exitError(9), "signal: killed");
  assert.equal(exitError(15), "signal: terminated");
  assert.equal(exitError(11), "signal: segmentation fault");
});
