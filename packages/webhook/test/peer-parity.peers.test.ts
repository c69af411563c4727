// Side by side with Debian's /usr/bin/webhook 2.8.0 (the peer): the same hooks files and the same requests go to
// both, and the status, body, user-visible headers and the command's effect (what it recorded about its argv, env,
// cwd, stdin and files) must be identical. Where upstream surprises, the peer is the reference, not expectations.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { access, chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK as OURS, PEER_WEBHOOK as PEER } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import {
  type HooksContext,
  hooksJson,
  hooksText,
  loadScenarios,
  type Recorder,
  type Scenario,
} from "./support/parity-fixtures.js";
import { type RawResponse, rawExchange, rawRequest } from "./support/raw-http.js";
import { RUN_RECORDER } from "./support/run-recorder.js";
import { ServerGroup } from "./support/server-group.js";

const TPL_TOKEN = 'tok"en';

type Side = "peer" | "ours";
type ServerName = "main" | "b" | "c" | "d";
interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  readonly dir: string;
  readonly log: string;
}

let root: string;
let wd: string;
const running = new Map<string, Running>();
const servers = new ServerGroup();

/** The argv of each server configuration (paths filled in once the fixture exists). */
function serverArgs(name: ServerName): string[] {
  switch (name) {
    case "main":
      return [
        ...[
          "-hooks",
          join(root, "hooks.json"),
          "-hooks",
          join(root, "hooks.yaml"),
          "-hooks",
          join(root, "quirks.json"),
        ],
        ...["-template", "-header", "X-Global=g1", "-header", "X-Other=o=2"],
      ];
    case "b":
      return ["-hooks", join(root, "b.json"), "-http-methods", "post, Put", "-urlprefix", "api/v1"];
    case "c":
      return ["-hooks", join(root, "c.json"), "-urlprefix", "", "-x-request-id", "-x-request-id-limit", "4"];
    case "d":
      return ["-hooks", join(root, "d.json"), "-debug", "-header", "X-D=1"];
  }
}

async function start(side: Side, name: ServerName): Promise<Running> {
  const dir = join(root, side);
  const port = await freePort();
  const argv = [...serverArgs(name), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  const [command, args] = side === "peer" ? [PEER, argv] : [process.execPath, [OURS, ...argv]];
  const started = await servers.start(command, args, {
    cwd: dir,
    env: sideEnv(side),
    ready: "serving hooks on",
  });
  return {
    child: started.child,
    port,
    dir,
    get log() {
      return started.log();
    },
  };
}

/** The environment both servers get; only the side's own directories differ, and the recorder hides them. */
function sideEnv(side: Side): Record<string, string> {
  const dir = join(root, side);
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    REC_DIR: join(dir, "rec"),
    SIDE_DIR: dir,
    WD_DIR: wd,
    TMPDIR: join(dir, "tmp"),
    TPL_TOKEN,
    TPL_PLAIN: "from-env",
  };
}

/** The scenarios and hooks files, as data: see test/fixtures/parity/README.md for where they come from. */
const FIXTURES = fileURLToPath(new URL("../../test/fixtures/parity/", import.meta.url));
const SCENARIOS: readonly Scenario[] = loadScenarios(FIXTURES);

const JSON_CT = ["Content-Type", "application/json"] as const;
const FORM_CT = ["Content-Type", "application/x-www-form-urlencoded"] as const;
const CHUNKED = ["Transfer-Encoding", "chunked"] as const;

/** The recorders the hooks files name, in the order met; each gets a script under `<root>/bin`. */
const recorders: Recorder[] = [];

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-parity-"));
  wd = join(root, "wd");
  for (const d of ["bin", "wd", "peer/rec", "peer/tmp", "ours/rec", "ours/tmp"])
    await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, "recorder.cjs"), RUN_RECORDER);
  const ctx: HooksContext = {
    root,
    recorder: (r) => {
      recorders.push(r);
      return join(root, "bin", r.name);
    },
  };
  await writeFile(join(root, "hooks.json"), hooksJson(FIXTURES, "hooks/main.json", { ctx, indent: 1 }));
  await writeFile(join(root, "hooks.yaml"), hooksText(FIXTURES, "hooks/main.yaml", ctx));
  await writeFile(join(root, "quirks.json"), hooksText(FIXTURES, "hooks/quirks.json", ctx));
  await writeFile(join(root, "b.json"), hooksJson(FIXTURES, "hooks/b.json", { ctx }));
  await writeFile(join(root, "c.json"), hooksJson(FIXTURES, "hooks/c.json", { ctx }));
  await writeFile(join(root, "d.json"), hooksJson(FIXTURES, "hooks/d.json", { ctx }));
  const script = ({ name, ...options }: Recorder) =>
    `#!${process.execPath}\nrequire(${JSON.stringify(join(root, "recorder.cjs"))})(${JSON.stringify(name)}, ${JSON.stringify(options)});\n`;
  await writeFile(join(root, "bin", "no-shebang"), `touch ${join(root, "no-shebang-ran")}\n`, {
    mode: 0o755,
  });
  for (const r of [...recorders, { name: "wd" }]) {
    const path = r.name === "wd" ? join(wd, "rec-wd") : join(root, "bin", r.name);
    await writeFile(path, script(r));
    await chmod(path, 0o755);
  }
  const names: ServerName[] = ["main", "b", "c", "d"];
  // allSettled, not all: when one start fails, the others must have spawned (and so be in `servers` for the
  // after hook to stop) before this hook rejects.
  const started = await Promise.allSettled(
    names.flatMap((n) =>
      (["peer", "ours"] as const).map(async (side) => [`${side}:${n}`, await start(side, n)] as const),
    ),
  );
  for (const result of started) {
    if (result.status === "rejected") throw result.reason;
    running.set(result.value[0], result.value[1]);
  }
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

// The headers in the order they came on the wire (Go writes the handler's own sorted, then Date, Content-Length and
// a Content-Type it sniffed itself), Date's value left out; a client that reads them raw sees that order.
function visible(r: RawResponse): string[] {
  return r.headers.map(([k, v]) => (k.toLowerCase() === "date" ? "date" : `${k.toLowerCase()}: ${v}`));
}

async function records(side: Side, rec: string): Promise<string[]> {
  const text = await readFile(join(root, side, "rec", `${rec}.jsonl`), "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the scenario against one side; returns the answer and the runs it added (paths checked, then dropped). */
async function runOn(side: Side, s: Scenario): Promise<{ res: RawResponse; runs: unknown[] }> {
  const server = running.get(`${side}:${s.server ?? "main"}`) as Running;
  const before = s.rec === undefined ? [] : await records(side, s.rec);
  const res = await rawRequest(server.port, {
    method: s.method ?? "POST",
    path: s.path,
    ...(s.headers === undefined ? {} : { headers: s.headers }),
    ...(s.body === undefined ? {} : { body: s.body }),
  });
  if (s.rec === undefined) return { res, runs: [] };
  let lines = await records(side, s.rec);
  for (let i = 0; s.async && s.ran && lines.length === before.length && i < 100; i++) {
    await sleep(50);
    lines = await records(side, s.rec);
  }
  if (s.async) await sleep(300); // let the async command end and its files go
  const runs = lines.slice(before.length).map((l) => {
    const { paths, ...entry } = JSON.parse(l) as { paths: string[] };
    for (const p of paths)
      assert.equal(existsSync(p), false, `${side}: ${p} must be removed after the command`);
    return entry;
  });
  return { res, runs };
}

for (const s of SCENARIOS) {
  test(`parity: ${s.name}`, async () => {
    const peer = await runOn("peer", s);
    const ours = await runOn("ours", s);
    const label = `${s.method ?? "POST"} ${s.path}`;
    assert.equal(peer.res.status, s.status, `peer status for ${label} (update the table to the peer's)`);
    assert.equal(ours.res.status, peer.res.status, `status for ${label}`);
    assert.deepEqual(ours.res.informational, peer.res.informational, `100 Continue or not for ${label}`);
    assert.equal(ours.res.body.toString("latin1"), peer.res.body.toString("latin1"), `body for ${label}`);
    assert.deepEqual(visible(ours.res), visible(peer.res), `headers for ${label}`);
    if (s.rec !== undefined) {
      assert.equal(peer.runs.length > 0, s.ran ?? false, `peer's command ${s.ran ? "must" : "must not"} run`);
      assert.deepEqual(ours.runs, peer.runs, `the command's effect for ${label}`);
    }
    if (s.log !== undefined) {
      for (const side of ["peer", "ours"] as const) {
        const log = (running.get(`${side}:${s.server ?? "main"}`) as Running).log;
        assert.ok(log.includes(s.log), `${side} logged ${JSON.stringify(s.log)}`);
      }
    }
  });
}

test("parity: no command ran late, on either side, for any scenario", async () => {
  await sleep(500);
  for (const { name } of recorders) {
    const peer = (await records("peer", name)).map((l) => ({ ...JSON.parse(l), paths: undefined }));
    const ours = (await records("ours", name)).map((l) => ({ ...JSON.parse(l), paths: undefined }));
    assert.deepEqual(ours, peer, `runs recorded for ${name}`);
  }
  for (const side of ["peer", "ours"])
    assert.deepEqual(await readdir(join(root, side, "tmp")), [], `${side}: files left`);
  assert.deepEqual(await readdir(wd), ["rec-wd"], "files left in the working directory");
  await assert.rejects(access(join(root, "no-shebang-ran")), "a script without #! ran through a shell");
});

test("parity: the suite covers at least 80 scenarios", () => {
  assert.ok(SCENARIOS.length >= 80, String(SCENARIOS.length));
});

/** Runs a short-lived invocation of one side; dates and the program name are normalised. */
function invoke(side: Side, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child =
      side === "peer"
        ? spawn(PEER, args, { cwd: root })
        : spawn(process.execPath, [OURS, ...args], { cwd: root });
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => (out += d));
    child.stderr?.on("data", (d: Buffer) => (err += d));
    // A program that cannot start, or an invocation that does not end within 20 s, is an answer the test reports.
    const deadline = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", (error) => {
      clearTimeout(deadline);
      resolve({ code: null, out, err: `cannot start: ${error.message}` });
    });
    const norm = (s: string) =>
      s
        .replace(/^(\[webhook\] )?\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /gm, "$1<date> ")
        .replace(/^Usage of \/usr\/bin\/webhook:/m, "Usage of webhook:")
        // Go's signal goroutine logs this wherever it gets to run: after a fatal line, it lands on stdout too.
        .replace(/^\[webhook\] <date> os signal watcher ready\n/m, "");
    child.on("close", (code) => {
      clearTimeout(deadline);
      resolve({ code, out: norm(out), err: norm(err) });
    });
  });
}

const CLI_CASES: readonly (readonly string[])[] = [
  ["-version"],
  ["--version"],
  ["-help"],
  ["-h"],
  ["-bogus"],
  ["-header", "no-equals"],
  ["-port", "abc"],
  ["-verbose=maybe"],
  ["-max-multipart-mem", "1e3"],
  ["-http-methods"],
  ["-list-cipher-suites"],
  ["-list-cipher-suites", "-tls-min-version", "1.3"],
  ["-list-cipher-suites", "-tls-min-version", "9"],
  ["-hooks", "/nonexistent/hooks.json"],
  ["-setuid", "1"],
];

for (const args of CLI_CASES) {
  test(`parity: command line ${args.join(" ")}`, async () => {
    const [peer, ours] = await Promise.all([invoke("peer", [...args]), invoke("ours", [...args])]);
    assert.deepEqual(ours, peer);
  });
}

const MALFORMED: readonly [string, string][] = [
  ["a header line without a colon", "GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"],
  ["HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n"],
  [
    "a transfer coding other than chunked",
    "POST /hooks/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
  ],
  ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
  ["an unknown HTTP version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n"],
  ["a Content-Length that is not a number", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
  [
    "headers past Go's 1 MiB + 4 KiB",
    `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_060_000)}\r\nContent-Length: 0\r\n\r\n`,
  ],
];

for (const [name, bytes] of MALFORMED) {
  test(`parity: a request Go cannot read: ${name}`, async () => {
    const peer = rawExchange((running.get("peer:main") as Running).port, bytes);
    const ours = rawExchange((running.get("ours:main") as Running).port, bytes);
    assert.match(await peer, /^HTTP\/1\.1 [45]\d\d /);
    assert.equal(await ours, await peer);
  });
}

test("parity: 1 MB of headers is still read (node's default limit is 16 KiB)", async () => {
  const bytes = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_040_000)}\r\nConnection: close\r\n\r\n`;
  for (const side of ["peer", "ours"] as const) {
    const answer = await rawExchange((running.get(`${side}:main`) as Running).port, bytes);
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/, side);
    assert.ok(answer.endsWith("\r\n\r\nOK"), side);
  }
});

test("parity: a kept-alive connection idle for 6 s still serves, and no Keep-Alive header is sent", async () => {
  // Go's http.Server as upstream builds it has no idle timeout; node's default closes idle connections after 5 s.
  const session = (port: number) =>
    new Promise<string[]>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      const answers: string[] = [];
      let text = "";
      const ask = () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      socket.on("connect", ask);
      socket.on("data", (c: Buffer) => {
        text += c.toString("latin1");
        if (!text.endsWith("\r\n\r\nOK")) return;
        answers.push(text);
        text = "";
        if (answers.length === 1) setTimeout(ask, 6000);
        else {
          socket.end();
          resolve(answers);
        }
      });
      socket.on("error", reject);
      socket.on("end", () => reject(new Error(`closed after ${answers.length} answer(s)`)));
    });
  const sessions = (["peer", "ours"] as const).map((side) =>
    session((running.get(`${side}:main`) as Running).port),
  );
  for (const answers of await Promise.all(sessions)) {
    assert.equal(answers.length, 2);
    for (const a of answers) assert.doesNotMatch(a, /^keep-alive:/im);
  }
});

test("parity: -debug and -verbose log lines, request by request", async () => {
  const requests: Scenario[] = [
    { name: "", path: "/", method: "GET", status: 200 },
    {
      name: "",
      path: "/hooks/ok?q=1&q=2",
      headers: [JSON_CT, ["X-A", "ha"]],
      body: '{"a":"A b"}',
      status: 200,
    },
    { name: "", path: "/hooks/rule", headers: [JSON_CT], body: '{"t":"y"}', status: 200 },
    { name: "", path: "/hooks/rule", headers: [JSON_CT], body: "bad json", status: 200 },
    { name: "", path: "/hooks/sig", headers: [["X-Sig", "sha256=00,sha256=11"]], body: "b", status: 500 },
    { name: "", path: "/hooks/meth", method: "GET", status: 405 },
    { name: "", path: "/hooks/fail", status: 500 },
    { name: "", path: "/hooks/missing", status: 500 },
    { name: "", path: "/hooks/code", status: 200 },
    { name: "", path: "/hooks/html", status: 200 },
    { name: "", path: "/hooks/nope", status: 404 },
    { name: "", path: "/elsewhere", method: "GET", status: 404 },
    { name: "", path: "/hooks/ok", headers: [FORM_CT], body: "a=1&a=2", status: 200 },
    // The dumper's view: the type upstream sets after WriteHeader; chunked bodies chunked again (one chunk, any
    // casing of the coding); a line of 64 KiB or more ends the dump (bufio.Scanner); a broken body's error.
    { name: "", path: "/hooks/fail-typed", status: 500 },
    // net/http's warning for a semicolon in the query, after the access line; also for a path outside the routes.
    { name: "", path: "/hooks/ok?q=1;x=2", headers: [JSON_CT], body: '{"a":"s"}', status: 200 },
    { name: "", path: "/elsewhere?;", method: "GET", status: 404 },
    { name: "", path: "/hooks/ok", headers: [CHUNKED, JSON_CT], body: "0\r\n\r\n", status: 200 },
    {
      name: "",
      path: "/hooks/ok",
      headers: [["Transfer-Encoding", "Chunked"], JSON_CT],
      body: '3\r\n{"a\r\n6\r\n":"b"}\r\n0\r\n\r\n',
      status: 200,
    },
    { name: "", path: "/hooks/ok", headers: [FORM_CT], body: `a=${"x".repeat(65_534)}\nb=2`, status: 200 },
    { name: "", path: "/hooks/ok", headers: [FORM_CT], body: `a=${"x".repeat(65_533)}\nb=2`, status: 200 },
    { name: "", path: "/hooks/ok", headers: [CHUNKED, JSON_CT], body: '9\r\n{"a":"xy"}\r\n', status: 200 },
    {
      name: "",
      path: "/hooks/ok",
      headers: [CHUNKED, JSON_CT],
      body: 'a\r\n{"a":"xy"}\r\n0\r\nno colon\r\n\r\n',
      status: 200,
    },
  ];
  const logs: Record<Side, string> = { peer: "", ours: "" };
  for (const side of ["peer", "ours"] as const) {
    const server = running.get(`${side}:d`) as Running;
    const start = server.log.length;
    for (const r of requests) {
      const res = await rawRequest(server.port, {
        method: r.method ?? "POST",
        path: r.path,
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body === undefined ? {} : { body: r.body }),
      });
      assert.equal(res.status, r.status, `${side} ${r.path}`);
    }
    await sleep(200);
    logs[side] = server.log
      .slice(start)
      .replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/g, "<date>")
      .replace(/\[[0-9a-f]{6}\]/g, "[<rid>]")
      .replace(/127\.0\.0\.1:\d+/g, "<addr>")
      .replace(/\| [\d.]+(ns|µs|ms|s) \|/g, "| <duration> |");
  }
  assert.deepEqual(logs.ours.split("\n"), logs.peer.split("\n"));
});

test("parity: -hotreload edits, a broken file, duplicate ids, SIGHUP and removal serve the same hooks", async () => {
  const hooksOf = (ids: string[]) =>
    JSON.stringify(ids.map((id) => ({ id, "execute-command": "/bin/true" })));
  // One same-size write in place: upstream's fsnotify reloads on every write event, and would otherwise also read
  // the file truncated but not yet written (a race of the peer's, not a behaviour to compare).
  const put = (path: string, text: string) =>
    writeFile(path, text.padEnd(400), { flag: existsSync(path) ? "r+" : "w" });
  const seen: Record<Side, number[]> = { peer: [], ours: [] };
  for (const side of ["peer", "ours"] as const) {
    const dir = join(root, side, "reload");
    await mkdir(dir, { recursive: true });
    await put(join(dir, "one.json"), hooksOf(["a"]));
    await put(join(dir, "two.json"), hooksOf(["b"]));
    const port = await freePort();
    const argv = [
      "-hooks",
      "one.json",
      "-hooks",
      "two.json",
      "-hotreload",
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
    ];
    const [command, args] =
      side === "peer" ? [PEER, [...argv, "-verbose"]] : [process.execPath, [OURS, ...argv, "-verbose"]];
    const { child } = await servers.start(command, args, { cwd: dir, ready: "serving hooks on" });
    const status = async (id: string) =>
      (await rawRequest(port, { method: "POST", path: `/hooks/${id}` })).status;
    // Waits (at most 5 s) for a reload to show, then records what is served.
    const settle = async (id: string, expected: number) => {
      for (let i = 0; i < 100 && (await status(id)) !== expected; i++) await sleep(50);
      seen[side].push(await status(id));
    };
    try {
      await settle("a", 200);
      await settle("c", 404);
      await put(join(dir, "one.json"), hooksOf(["a", "c"]));
      await settle("c", 200);
      await put(join(dir, "one.json"), "[ not json");
      await sleep(500);
      await settle("c", 200);
      await put(join(dir, "one.json"), hooksOf(["b"]));
      await sleep(500);
      await settle("a", 200);
      await settle("b", 200);
      await put(join(dir, "two.json"), hooksOf(["b", "d"]));
      child.kill("SIGHUP");
      await sleep(500);
      await settle("d", 200);
      await rm(join(dir, "two.json"));
      await settle("b", 404);
    } finally {
      await servers.stop(child);
    }
  }
  assert.deepEqual(seen.ours, seen.peer);
  assert.deepEqual(seen.peer, [200, 404, 200, 200, 200, 200, 200, 404]);
});

test("parity: a -pidfile naming a live process is fatal; a missing directory is created", async () => {
  for (const verbose of [[], ["-verbose"]]) {
    const results = [];
    for (const side of ["peer", "ours"] as const) {
      const pidfile = join(root, side, "live.pid");
      await writeFile(pidfile, "1");
      const args = ["-hooks", join(root, "c.json"), "-ip", "127.0.0.1", "-port", String(await freePort())];
      results.push(await invoke(side, [...args, "-pidfile", pidfile, ...verbose]));
      assert.equal(await readFile(pidfile, "utf8"), "1", `${side} left the pid file alone`);
    }
    const [peer, ours] = results.map((r) => ({
      ...r,
      err: r.err.replaceAll(/\/(peer|ours)\//g, "/<side>/"),
    }));
    assert.deepEqual(ours, peer);
    assert.equal(peer?.code, 1);
  }
  const dirs: Record<Side, string> = { peer: "", ours: "" };
  for (const side of ["peer", "ours"] as const) {
    const port = await freePort();
    const pidfile = join(root, side, "new", "dir", "w.pid");
    const argv = [
      "-hooks",
      join(root, "c.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-pidfile",
      pidfile,
    ];
    const child = side === "peer" ? spawn(PEER, argv) : spawn(process.execPath, [OURS, ...argv]);
    // Without -verbose there is no log line to wait for, only the pid file; a program that cannot start leaves none.
    child.on("error", () => undefined);
    try {
      // A pid it can parse: a file that exists may still be empty where a writer truncates before it writes.
      const written = () => readFile(pidfile, "utf8").catch(() => "");
      for (let i = 0; i < 200 && !/^\d+$/.test(await written()); i++) await sleep(25);
      dirs[side] = String(child.pid === Number(await written()));
    } finally {
      child.kill("SIGTERM");
      if (child.pid !== undefined && child.exitCode === null) await new Promise((r) => child.on("close", r));
    }
    dirs[side] += ` ${existsSync(pidfile)}`;
  }
  assert.deepEqual(dirs, { peer: "true false", ours: "true false" });
});
