import assert from "node:assert/strict";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "./support/free-port.js";
import { greetHooks } from "./support/greet-hooks.js";
import { request } from "./support/http-request.js";
import { installTarballs, REPO, TOOLS, toolVersion } from "./support/release-files.js";
import { type RunResult, run, runOk, userEnv } from "./support/run.js";
import { output, Servers } from "./support/servers.js";
import { type CodeHost, PROJECT, startCodeHost } from "./support/toolmgr-code-host.js";
import { waitFor } from "./support/wait-for.js";

// Issue 33 item 1 and its tests: `npm run release` in a copy of the repository; the tarballs installed into an empty
// prefix with an empty npm cache and --offline, each tool run from a directory outside the repository; the single
// executables run where no `node` can be found.

const VERSION = Object.fromEntries(TOOLS.map((tool) => [tool, toolVersion(tool)])) as Record<
  (typeof TOOLS)[number],
  string
>;
const FIXTURE = join(REPO, "packages", "bootstatus", "test", "fixtures", "degraded-done");
const FIXTURE_BIN = join(REPO, "packages", "bootstatus", "test", "fixtures", "bin");
/**
 * Runs a program in a mount namespace where every `node` on the default PATH is covered by /dev/null (so it cannot
 * be executed) and checks that no `node` is reachable before starting it: exit 99 if one is.
 */
const WITHOUT_NODE = [
  "-m",
  "--propagation",
  "private",
  "sh",
  "-c",
  'for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do if [ -e "$d/node" ]; then mount --bind /dev/null "$d/node" || exit 98; fi; done; if command -v node >/dev/null 2>&1; then echo "node is reachable" >&2; exit 99; fi; exec "$@"',
  "sh",
];

const work = mkdtempSync(join(tmpdir(), "packaging-release-"));
const copy = join(work, "repo");
const release = join(copy, "release");
const prefix = join(work, "prefix");
const outside = join(work, "outside");
const servers = new Servers();
let host: CodeHost | undefined;

before(async () => {
  // The copy is the working tree as built by `npm run test:peers`, without git and release/; node_modules is
  // hard-linked when it can be (nothing writes there), so the copy costs seconds.
  cpSync(REPO, copy, {
    recursive: true,
    filter: (src) => {
      const parts = relative(REPO, src).split(sep);
      return !parts.includes("node_modules") && ![".git", "release", ".tmp"].includes(parts[0] ?? "");
    },
  });
  for (const dir of [".", ...readdirSync(join(REPO, "packages")).map((p) => join("packages", p))]) {
    if (existsSync(join(REPO, dir, "node_modules"))) {
      const [from, to] = [join(REPO, dir, "node_modules"), join(copy, dir, "node_modules")];
      // Hard links need one file system; where the temporary directory is on another, a real copy.
      const linked = await run("cp", ["-al", from, to], { timeoutMs: 120_000 });
      if (linked.code !== 0) {
        rmSync(to, { recursive: true, force: true });
        await runOk("cp", ["-a", from, to], { timeoutMs: 300_000 });
      }
    }
  }
  await runOk("npm", ["run", "release"], { cwd: copy, env: userEnv(), timeoutMs: 420_000 });
  mkdirSync(outside);
  await installTarballs({
    prefix,
    cache: join(work, "npm-cache"),
    tarballs: TOOLS.map((tool) => join(release, `${tool}-${VERSION[tool]}.tgz`)),
    cwd: outside,
  });
  host = await startCodeHost();
});

after(async () => {
  await servers.stopAll();
  await host?.close();
  rmSync(work, { recursive: true, force: true });
});

test("npm run release writes four tarballs, two single executables and SHA256SUMS that sha256sum -c accepts", async () => {
  const expected = [
    ...TOOLS.map((tool) => `${tool}-${VERSION[tool]}.tgz`),
    "toolmgr-linux-x64",
    "bootstatus-linux-x64",
    "SHA256SUMS",
  ].sort();
  assert.deepEqual(readdirSync(release).sort(), expected);
  const check = await run("sha256sum", ["-c", "--strict", "SHA256SUMS"], { cwd: release, timeoutMs: 60_000 });
  assert.equal(check.code, 0, check.stdout + check.stderr);
  const listed = check.stdout
    .trim()
    .split("\n")
    .map((line) => line.replace(/: OK$/, ""));
  assert.deepEqual(listed, expected.filter((name) => name !== "SHA256SUMS").sort());
  // Each tarball holds the built program, not the workspace: no TypeScript sources, tests or source maps of ours.
  for (const tool of TOOLS) {
    const listing = await runOk("tar", ["-tzf", join(release, `${tool}-${VERSION[tool]}.tgz`)], {
      timeoutMs: 60_000,
    });
    const own = listing.stdout
      .split("\n")
      .filter((entry) => entry !== "" && !entry.startsWith("package/node_modules/"));
    assert.ok(own.includes("package/package.json") && own.includes(`package/bin/${tool}.js`), own.join("\n"));
    assert.deepEqual(
      own.filter((entry) => /\.(ts|map)$|\.test\.js$|^package\/(src|test)\//.test(entry)),
      [],
      `${tool}'s tarball`,
    );
  }
  // release/ is git-ignored (read from .gitignore: the tests may run from an export without git).
  assert.ok(
    readFileSync(join(REPO, ".gitignore"), "utf8").split("\n").includes("release/"),
    ".gitignore: release/",
  );
});

test("each installed tool reports the version in its file name", async () => {
  for (const tool of TOOLS) {
    const result = await runOk(join(prefix, "bin", tool), ["--version"], {
      cwd: outside,
      env: userEnv(),
      timeoutMs: 30_000,
    });
    assert.match(
      result.stdout.split("\n")[0] ?? "",
      new RegExp(`(^|[ v])${VERSION[tool].replaceAll(".", "\\.")}($|[ (,])`),
    );
  }
});

/**
 * toolmgr `list`, `lock` and `sync` against the fake code host for a user whose home is `user` (toolmgr's store in
 * its default place there); `toolmgr` runs a command line. Returns the project directory.
 */
async function toolmgrWorks(
  toolmgr: (args: string[], cwd: string) => Promise<RunResult>,
  user: string,
): Promise<string> {
  const listed = await toolmgr(["list"], outside);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^ethereum +\d+ tools$/m);
  // The embedded registry is in the program: a recipe's description comes out with no file of the repository.
  const ethereum = await toolmgr(["list", "ethereum"], outside);
  assert.match(ethereum.stdout, /^medusa +Parallel coverage-guided fuzzer/m);
  const project = mkdtempSync(join(outside, "project-"));
  writeFileSync(join(project, "toolmgr.toml"), PROJECT);
  const locked = await toolmgr(["lock"], project);
  assert.equal(locked.code, 0, locked.stderr);
  assert.match(readFileSync(join(project, "toolmgr.lock"), "utf8"), /medusa/);
  const synced = await toolmgr(["sync"], project);
  assert.equal(synced.code, 0, synced.stderr);
  for (const tool of ["medusa", "hello"]) {
    assert.ok(existsSync(join(shims(user), tool)), `sync wrote no shim for ${tool} in ${shims(user)}`);
  }
  return project;
}

/** The user's environment: no TOOLMGR_HOME, so toolmgr and its shims find the store under $HOME as for most users. */
function toolmgrEnv(user: string, path: string): NodeJS.ProcessEnv {
  return { PATH: path, HOME: user, CODEHOST_API_URL: host?.apiUrl ?? "", CODEHOST_TOKEN: "" };
}

/** The shims directory `toolmgr sync` fills for a user (the store's default place). */
function shims(user: string): string {
  return join(user, ".local", "share", "toolmgr", "shims");
}

/** What a shim sees: the user's shell with the shims first on PATH. */
function shimEnv(user: string): NodeJS.ProcessEnv {
  return { PATH: `${shims(user)}:/usr/bin:/bin`, HOME: user, CODEHOST_API_URL: host?.apiUrl ?? "" };
}

test("the toolmgr tarball: list, lock and sync against a code host, and its shims run the pinned tools", async () => {
  const user = join(work, "toolmgr-user");
  const env = toolmgrEnv(user, `${join(prefix, "bin")}:/usr/bin:/bin`);
  const project = await toolmgrWorks(
    (args, cwd) => run(join(prefix, "bin", "toolmgr"), args, { cwd, env, timeoutMs: 60_000 }),
    user,
  );
  const medusa = await run(join(shims(user), "medusa"), ["check"], {
    cwd: project,
    env: shimEnv(user),
    timeoutMs: 30_000,
  });
  assert.deepEqual(medusa, { code: 0, stdout: "medusa 1.0.0 check\n", stderr: "" });
});

test("the webhook tarball serves a hook that runs a command", async () => {
  const port = await freePort();
  const hooks = join(outside, "hooks.json");
  writeFileSync(hooks, greetHooks({ script: 'echo "hello $1 from $(pwd)"', workingDirectory: outside }));
  const webhook = servers.start(
    join(prefix, "bin", "webhook"),
    ["-hooks", hooks, "-ip", "127.0.0.1", "-port", String(port)],
    {
      cwd: outside,
      env: userEnv(),
    },
  );
  const answer = await waitFor(
    "webhook to answer",
    () => request(`http://127.0.0.1:${port}/hooks/greet?who=world`),
    {
      timeoutMs: 20_000,
      detail: () => output(webhook),
    },
  );
  assert.deepEqual(answer, { status: 200, body: `hello world from ${outside}\n` });
  assert.equal(await servers.stop(webhook), 0, output(webhook));
});

test("the pushgateway tarball takes a push and answers a scrape", async () => {
  const port = await freePort();
  const gateway = servers.start(
    join(prefix, "bin", "pushgateway"),
    [`--web.listen-address=127.0.0.1:${port}`],
    {
      cwd: outside,
      env: userEnv(),
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    "the Pushgateway to be ready",
    async () => ((await request(`${base}/-/ready`)).status === 200 ? true : undefined),
    {
      timeoutMs: 20_000,
      detail: () => output(gateway),
    },
  );
  const pushed = await request(`${base}/metrics/job/release/instance/tarball`, {
    method: "PUT",
    body: "# TYPE backup_size_bytes gauge\nbackup_size_bytes 1234\n",
  });
  assert.equal(pushed.status, 200, pushed.body);
  const scraped = await request(`${base}/metrics`);
  assert.match(scraped.body, /^backup_size_bytes\{instance="tarball",job="release"\} 1234$/m);
  assert.equal(await servers.stop(gateway), 0, output(gateway));
});

async function bootstatusWorks(bootstatus: (args: string[]) => Promise<RunResult>): Promise<void> {
  const result = await bootstatus(["--root", join(FIXTURE, "root"), "--long"]);
  assert.equal(result.stdout, readFileSync(join(FIXTURE, "expected", "tabular-long.txt"), "utf8"));
  assert.equal(
    result.code,
    Number(readFileSync(join(FIXTURE, "expected", "exit-code"), "utf8").trim()),
    result.stderr,
  );
  // The JSON Schema is read beside the code: the package ships it, the single executable carries it.
  const schema = await bootstatus(["schema"]);
  assert.equal(schema.code, 0, schema.stderr);
  assert.equal(
    schema.stdout,
    readFileSync(join(REPO, "packages", "bootstatus", "schema", "boot-status-report-v1.json"), "utf8"),
  );
}

// The fixture's fake systemctl (a sh script) answers like a healthy host; FAKE_SYSTEMCTL_DIR has nothing to add.
const BOOTSTATUS_ENV = { PATH: `${FIXTURE_BIN}:/usr/bin:/bin`, FAKE_SYSTEMCTL_DIR: "/nonexistent" };

test("the bootstatus tarball reads a fixture root as cloud-init status --long does", async () => {
  await bootstatusWorks((args) =>
    run(join(prefix, "bin", "bootstatus"), args, {
      cwd: outside,
      env: { ...BOOTSTATUS_ENV, PATH: `${join(prefix, "bin")}:${BOOTSTATUS_ENV.PATH}` },
      timeoutMs: 30_000,
    }),
  );
});

test("the toolmgr single executable works with no node reachable: list, lock, sync and a shim", async () => {
  const bin = join(work, "sea-bin");
  mkdirSync(bin, { recursive: true });
  cpSync(join(release, "toolmgr-linux-x64"), join(bin, "toolmgr"));
  const user = join(work, "toolmgr-sea-user");
  const env = toolmgrEnv(user, `${bin}:/usr/bin:/bin`);
  const hidden = (program: string, args: string[], cwd: string) =>
    run("unshare", [...WITHOUT_NODE, program, ...args], { cwd, env, timeoutMs: 60_000 });
  const sanity = await hidden("/bin/sh", ["-c", "exit 0"], outside);
  assert.equal(sanity.code, 0, `no node-less namespace: ${sanity.stderr}`);
  const project = await toolmgrWorks((args, cwd) => hidden(join(bin, "toolmgr"), args, cwd), user);
  const shim = readFileSync(join(shims(user), "hello"), "utf8");
  // The shim hands a project-local source to the executable itself, not to `node <script>`.
  assert.match(shim, new RegExp(`exec '${join(bin, "toolmgr")}' exec "\\$_tm_cmd"`));
  for (const [tool, expected] of [
    ["hello", "hello 1.0.0 a b\n"],
    ["medusa", "medusa 1.0.0 a b\n"],
  ] as const) {
    const result = await run("unshare", [...WITHOUT_NODE, join(shims(user), tool), "a", "b"], {
      cwd: project,
      env: shimEnv(user),
      timeoutMs: 30_000,
    });
    assert.deepEqual(result, { code: 0, stdout: expected, stderr: "" });
  }
});

test("the bootstatus single executable reads a fixture root with no node reachable", async () => {
  await bootstatusWorks((args) =>
    run("unshare", [...WITHOUT_NODE, join(release, "bootstatus-linux-x64"), ...args], {
      cwd: outside,
      env: BOOTSTATUS_ENV,
      timeoutMs: 30_000,
    }),
  );
});
