import assert from "node:assert/strict";
import { access, chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runProgram, TOOLMGR_BIN } from "./support/run-cli.js";

// An executable's last path segment becomes a command: a shim's file name, a word of `which --list`, which the bash
// completion hands to `compgen -W` (and compgen expands `$(…)` in its words). A lock comes with a cloned repository,
// so a name like `$(id>pwned)` must never get that far: refused from toolmgr.toml, recipes and locks alike.

const EVIL = "$(id>pwned)";

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("a command name that is not an executable's name is refused in toolmgr.toml before any request", async () => {
  for (const bin of [EVIL, "bin/a b", "-rf", ".toolmgr-shims", "x;y", "a\nb", 'a"b', "a%PATH%"]) {
    const p = await blockProject(host, HELLO.replace('bin = ["hello"]', `bin = [${JSON.stringify(bin)}]`));
    const requests = host.count("/");
    const r = await p.run("lock");
    assert.equal(r.code, 1, JSON.stringify(bin));
    assert.match(r.stderr, /Invalid executable path .* use letters, digits, "\.", "_", "\+" and "-"/);
    assert.equal(host.count("/"), requests, "no request was made");
  }
  // What executables are called stays accepted: nested, dotted, with + and _ (Nethermind.Runner, g++, nimbus_beacon_node).
  const p = await blockProject(
    host,
    HELLO.replace(
      'bin = ["hello"]',
      'bin = ["hello", "build/nimbus_beacon_node", "Nethermind.Runner", "x86_64/g++"]',
    ),
  );
  const r = await p.run("lock");
  assert.doesNotMatch(r.stderr, /Invalid executable path/);
});

test("a cloned project's lock with such a command: which --list, bash completion, sync and status run nothing", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  const lockPath = join(p.dir, "toolmgr.lock");
  await writeFile(
    lockPath,
    (await readFile(lockPath, "utf8")).replace('bin = ["hello"]', `bin = ["${EVIL}"]`),
  );
  const list = await p.run("which", "--list");
  assert.ok(!list.stdout.includes(EVIL), list.stdout);
  for (const args of [["sync"], ["status"], ["exec", "hello"]]) {
    const r = await p.run(...args);
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, /Cannot parse lock: Invalid executable path "\$\(id>pwned\)"/, args.join(" "));
  }
  // The completion itself, as a user's bash runs it, with toolmgr on PATH: a TAB after `toolmgr exec `.
  const bash = "/bin/bash";
  if (
    !(await access(bash).then(
      () => true,
      () => false,
    ))
  )
    return;
  const bin = join(p.dir, "bin");
  await writeFile(
    join(p.dir, "toolmgr-launcher"),
    `#!/bin/sh\nexec "${process.execPath}" "${TOOLMGR_BIN}" "$@"\n`,
  );
  await chmod(join(p.dir, "toolmgr-launcher"), 0o755);
  const script = `mkdir -p "${bin}" && ln -sf "${join(p.dir, "toolmgr-launcher")}" "${bin}/toolmgr" && PATH="${bin}:$PATH" &&
source <(toolmgr completion bash) && COMP_WORDS=(toolmgr exec "") && COMP_CWORD=2 && _toolmgr && echo "\${COMPREPLY[*]}"`;
  const completion = await runProgram(bash, ["-c", script], {
    cwd: p.dir,
    env: { PATH: "/usr/bin:/bin", TOOLMGR_HOME: p.home, XDG_CONFIG_HOME: join(p.dir, "config") },
  });
  assert.equal(completion.code, 0, completion.stderr);
  await assert.rejects(access(join(p.dir, "pwned")), "the completion ran nothing from the lock");
});

test("a control character from toolmgr.toml or the lock is shown escaped in a message, never sent to the terminal", async () => {
  // nao1215/block internal/version/version_test.go refuses "1.7.0-rc\x1b[2J" as a version; quoting it back must not
  // clear the reader's screen either.
  const p = await blockProject(host, HELLO.replace('version = "1.2"', 'version = "\\u001b[2J\\r1.2"'));
  const r = await p.run("lock");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /"\\x1b\[2J\\x0d1\.2"/);
  assert.ok(!r.stderr.includes("\u001b") && !r.stderr.includes("\r"), JSON.stringify(r.stderr));
  const q = await blockProject(host, HELLO);
  assert.equal((await q.run("lock")).code, 0);
  const lockPath = join(q.dir, "toolmgr.lock");
  await writeFile(
    lockPath,
    (await readFile(lockPath, "utf8")).replace(
      'version = "1.2.3"',
      'version = "1.2.3\\u001b]0;owned\\u0007"',
    ),
  );
  const s = await q.run("sync");
  assert.equal(s.code, 1);
  assert.match(s.stderr, /invalid version "1\.2\.3\\x1b\]0;owned\\x07"/);
  assert.ok(!s.stderr.includes("\u001b") && !s.stderr.includes("\u0007"), JSON.stringify(s.stderr));
  // lock ignores that lock with a warning quoting it, escaped the same way, and writes a new one.
  const l = await q.run("lock");
  assert.equal(l.code, 0, l.stderr);
  assert.match(l.stderr, /ignoring the existing lock: .*invalid version "1\.2\.3\\x1b\]0;owned\\x07"/);
  assert.ok(!l.stderr.includes("\u001b") && !l.stderr.includes("\u0007"), JSON.stringify(l.stderr));
});
