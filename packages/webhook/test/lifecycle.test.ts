import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as BIN } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";

let dir: string;
const children: ChildProcess[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-life-"));
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** Starts the built server; resolves once it serves, with its base URL and a log reader. */
async function start(args: string[], env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, ...args, "-ip", "127.0.0.1", "-port", String(port)], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/`);
      break;
    } catch (error) {
      if (i > 200 || child.exitCode !== null)
        throw new Error(`webhook did not start: ${log}`, { cause: error });
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return { child, base, log: () => log };
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  let lastError: unknown;
  for (let i = 0; i < 200; i++) {
    // A connection error (a keep-alive socket closed under the client) is one more try, not the answer.
    const done = await check().catch((error: unknown) => {
      lastError = error;
      return false;
    });
    if (done) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(
    `never happened: ${what}${lastError === undefined ? "" : ` (last error: ${String(lastError)})`}`,
  );
}

const hook = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  "execute-command": "/bin/echo",
  "include-command-output-in-response": true,
  "pass-arguments-to-command": [{ source: "string", name: id }],
  ...extra,
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

test("-hotreload picks up an edit in place and an atomic replace by rename", async () => {
  const file = join(dir, "hot.json");
  await writeFile(file, JSON.stringify([hook("one")]));
  const { base, log } = await start(["-hooks", file, "-hotreload", "-verbose"]);
  assert.equal((await fetch(`${base}/hooks/two`)).status, 404);
  await writeFile(file, JSON.stringify([hook("one"), hook("two")]));
  await eventually(async () => (await fetch(`${base}/hooks/two`)).status === 200, "edit reloaded");
  await writeFile(join(dir, "hot.tmp"), JSON.stringify([hook("three")]));
  await rename(join(dir, "hot.tmp"), file);
  await eventually(async () => (await fetch(`${base}/hooks/three`)).status === 200, "rename reloaded");
  assert.equal((await fetch(`${base}/hooks/one`)).status, 404);
  // Upstream's order: the watchers are set up before the start-up line.
  assert.match(log(), /setting up file watcher for [^\n]*\n[^\n]*serving hooks on /);
});

test("SIGHUP reloads; SIGTERM exits 0 and removes the pidfile", async () => {
  const file = join(dir, "hup.json");
  const pidfile = join(dir, "webhook.pid");
  await writeFile(file, JSON.stringify([hook("a")]));
  const { child, base, log } = await start(["-hooks", file, "-pidfile", pidfile, "-verbose"]);
  assert.equal(await readFile(pidfile, "utf8"), String(child.pid));
  await writeFile(file, JSON.stringify([hook("a"), hook("b")]));
  child.kill("SIGHUP");
  await eventually(async () => (await fetch(`${base}/hooks/b`)).status === 200, "SIGHUP reloaded");
  assert.match(log(), /caught HUP signal/);
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
  assert.equal(await exists(pidfile), false);
  assert.match(log(), /caught terminated signal; exiting/);
});

test("a YAML hooks file as a -template with getenv; -urlprefix, -header and custom codes and headers", async () => {
  const file = join(dir, "hooks.yaml");
  await writeFile(
    file,
    [
      "- id: deploy",
      "  execute-command: '{{ getenv \"CMD\" }}'",
      "  include-command-output-in-response: true",
      "  success-http-response-code: 201",
      "  trigger-rule-mismatch-http-response-code: 403",
      "  response-headers:",
      "    - name: X-Hook",
      "      value: deploy",
      "  pass-arguments-to-command:",
      "    - source: query",
      "      name: v",
      "  trigger-rule:",
      "    match: {type: value, value: go, parameter: {source: query, name: v}}",
    ].join("\n"),
  );
  const { base } = await start(["-hooks", file, "-template", "-urlprefix", "api", "-header", "X-Server=wh"], {
    CMD: "/bin/echo",
  });
  const ok = await fetch(`${base}/api/deploy?v=go`);
  assert.equal(ok.status, 201);
  assert.equal(ok.headers.get("x-hook"), "deploy");
  assert.equal(ok.headers.get("x-server"), "wh");
  assert.equal(await ok.text(), "go\n");
  const no = await fetch(`${base}/api/deploy?v=stop`);
  assert.equal(no.status, 403);
  assert.equal(no.headers.get("x-hook"), null, "response-headers only once triggered");
  assert.equal(await no.text(), "Hook rules were not satisfied.");
  assert.equal((await fetch(`${base}/hooks/deploy?v=go`)).status, 404);
});

test("form, multipart and XML bodies, environment and file arguments reach the command", async () => {
  const file = join(dir, "bodies.json");
  await writeFile(
    file,
    JSON.stringify([
      {
        id: "env",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: 'printf "%s|%s|%s" "$HOOK_a" "$NAMED" "$(cat "$HOOK_F")"' },
        ],
        "pass-environment-to-command": [
          { source: "payload", name: "a" },
          { source: "payload", name: "b", envname: "NAMED" },
        ],
        "pass-file-to-command": [{ source: "payload", name: "f" }],
      },
    ]),
  );
  const { base } = await start(["-hooks", file]);
  const form = await fetch(`${base}/hooks/env`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "a=1&b=two&f=file+text",
  });
  assert.equal(await form.text(), "1|two|file text");
  const multipart = new FormData();
  multipart.set("a", "m1");
  multipart.set("b", "m2");
  multipart.set("f", "m3");
  assert.equal(
    await (await fetch(`${base}/hooks/env`, { method: "POST", body: multipart })).text(),
    "m1|m2|m3",
  );
  const xml = await fetch(`${base}/hooks/env`, {
    method: "POST",
    headers: { "Content-Type": "application/xml" },
    body: "<a>x1</a>",
  });
  assert.equal(xml.status, 200);
});

test("SIGTERM lets a request in flight finish before exiting", async () => {
  const file = join(dir, "graceful.json");
  await writeFile(
    file,
    JSON.stringify([
      {
        id: "wait",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: "sleep 0.5; echo done" },
        ],
      },
    ]),
  );
  const { child, base, log } = await start(["-hooks", file, "-verbose"]);
  const pending = fetch(`${base}/hooks/wait`);
  await eventually(async () => log().includes("executing /bin/sh"), "command started");
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  child.kill("SIGTERM");
  const r = await pending;
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "done\n");
  assert.equal(await exited, 0);
});

test("SIGTERM closes kept-alive idle connections instead of waiting for them", async () => {
  const file = join(dir, "idle.json");
  await writeFile(file, JSON.stringify([hook("idle")]));
  const { child, base } = await start(["-hooks", file]);
  const { port } = new URL(base);
  const socket = connect(Number(port), "127.0.0.1");
  let answers = "";
  socket.on("data", (c: Buffer) => (answers += c.toString()));
  const closedByServer = new Promise<void>((resolve) => socket.on("end", () => resolve()));
  socket.write("GET /hooks/idle HTTP/1.1\r\nHost: x\r\n\r\n");
  await eventually(async () => answers.endsWith("idle\n"), "answered on a kept-alive connection");
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  child.kill("SIGTERM");
  // The server ends the idle connection itself; it does not sit out its 5 s grace for it (then exit closes it).
  const waited = await Promise.race([
    closedByServer.then(() => "closed"),
    new Promise((r) => setTimeout(() => r("still open after 3 s"), 3000)),
  ]);
  assert.equal(waited, "closed");
  assert.equal(await exited, 0);
  socket.destroy();
});

test("unclean paths redirect as gorilla/mux does; parse-parameters-as-json reaches headers and query values", async () => {
  const file = join(dir, "paths.json");
  await writeFile(
    file,
    JSON.stringify([
      {
        id: "pj",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "parse-parameters-as-json": [
          { source: "header", name: "X-Data" },
          { source: "url", name: "q" },
        ],
        "pass-arguments-to-command": [
          { source: "header", name: "X-Data.k" },
          { source: "url", name: "q.n" },
        ],
      },
    ]),
  );
  const { base } = await start(["-hooks", file]);
  const moved = await fetch(`${base}//hooks/pj?a=1`, { redirect: "manual" });
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get("location"), "/hooks/pj?a=1");
  const r = await fetch(`${base}/hooks/pj?q=${encodeURIComponent('{"n":1.10}')}`, {
    headers: { "X-Data": '{"k":"v"}' },
  });
  assert.equal(await r.text(), "v 1.10\n");
});

/** Runs the built server to completion (for start-up failures); resolves with its exit code and output. */
function runToExit(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
    child.on("close", (code) => resolve({ code, out }));
  });
}

test("-logfile receives the log (verbose implied); a log file that cannot be opened exits 1 as upstream", async () => {
  const file = join(dir, "logged.json");
  const logfile = join(dir, "webhook.log");
  await writeFile(file, JSON.stringify([hook("logged")]));
  const { base, child } = await start(["-hooks", file, "-logfile", logfile]);
  assert.equal((await fetch(`${base}/hooks/logged`)).status, 200);
  await eventually(
    async () => /finished handling logged/.test(await readFile(logfile, "utf8")),
    "log written",
  );
  assert.match(await readFile(logfile, "utf8"), /serving hooks on http:\/\/127\.0\.0\.1:\d+\/hooks\/\{id\}/);
  // The last line is written before the exit, as Go's log writes it (it was lost in a stream's queue).
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGTERM");
  await exited;
  assert.match(await readFile(logfile, "utf8"), /caught terminated signal; exiting\n$/);

  const failed = await runToExit(["-hooks", file, "-logfile", join(dir, "missing", "dir", "x.log")]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.out,
    /error opening log file ".*missing\/dir\/x\.log": open .*missing\/dir\/x\.log: no such file or directory/,
  );
});

test("a log file that cannot be written (a full disk) loses lines, not the server, as upstream", async () => {
  const file = join(dir, "full-disk.json");
  await writeFile(file, JSON.stringify([hook("full-disk")]));
  const { base } = await start(["-hooks", file, "-logfile", "/dev/full"]);
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base}/hooks/full-disk`)).status, 200);
  assert.equal(await (await fetch(`${base}/`)).text(), "OK");
});

test("-nopanic serves without loadable hooks; without it (and without -verbose) the start fails", async () => {
  const file = join(dir, "broken.json");
  await writeFile(file, "not json");
  const { base } = await start(["-hooks", file, "-nopanic"]);
  assert.equal(await (await fetch(`${base}/`)).text(), "OK");
  const missing = await fetch(`${base}/hooks/any`);
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "Hook not found.");

  const failed = await runToExit(["-hooks", file, "-ip", "127.0.0.1", "-port", String(await freePort())]);
  assert.equal(failed.code, 1);
  assert.match(failed.out, /couldn't load any hooks from file!/);
});

test("-socket serves on a Unix socket and removes it on SIGTERM", async () => {
  const file = join(dir, "sock.json");
  const socket = join(dir, "webhook.sock");
  await writeFile(file, JSON.stringify([hook("sock")]));
  const child = spawn(process.execPath, [BIN, "-hooks", file, "-socket", socket], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const { request } = await import("node:http");
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      request({ socketPath: socket, path }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on("error", reject)
        .end();
    });
  await eventually(() => exists(socket), "socket created");
  let answer: { status: number; body: string } | undefined;
  await eventually(async () => {
    answer = await get("/hooks/sock");
    return true;
  }, "served on the socket");
  assert.equal(answer?.status, 200);
  assert.equal(answer?.body, "sock\n");
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
  assert.equal(await exists(socket), false);
});

test("a command that cannot run is exec.LookPath's error in the log: stat for a missing path, permission denied otherwise", async () => {
  const file = join(dir, "lookpath.json");
  const plain = join(dir, "not-executable");
  await writeFile(plain, "#!/bin/sh\necho never\n", { mode: 0o644 });
  const missing = join(dir, "missing-command");
  await writeFile(
    file,
    JSON.stringify([
      hook("plain", { "execute-command": plain }),
      hook("folder", { "execute-command": dir }),
      hook("missing", { "execute-command": missing }),
    ]),
  );
  const { base, log } = await start(["-hooks", file, "-verbose"]);
  for (const id of ["plain", "folder", "missing"]) {
    const r = await fetch(`${base}/hooks/${id}`);
    assert.equal(r.status, 500, id);
    assert.equal(
      await r.text(),
      "Error occurred while executing the hook's command. Please check your logs for more details.",
    );
  }
  // Debian's 2.8.0 (Go 1.19's findExecutable): the lines checked live beside ours.
  await eventually(async () => log().includes(`error in exec: "${missing}"`), "three exec errors logged");
  assert.match(log(), new RegExp(`error in exec: "${plain}": permission denied\\n`));
  assert.match(log(), new RegExp(`error in exec: "${dir}": permission denied\\n`));
  assert.match(
    log(),
    new RegExp(`error in exec: "${missing}": stat ${missing}: no such file or directory\\n`),
  );
});

test("-hotreload: the last hooks file removed ends webhook with exit 1 unless -verbose or -nopanic, as upstream", async () => {
  for (const flags of [[], ["-nopanic"], ["-verbose"]]) {
    const file = join(dir, `last${flags.join("")}.json`);
    await writeFile(file, JSON.stringify([hook("x")]));
    const { child, base } = await start(["-hooks", file, "-hotreload", ...flags]);
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    await rm(file);
    if (flags.length > 0) {
      await eventually(async () => (await fetch(`${base}/hooks/x`)).status === 404, "hooks removed");
      assert.equal(child.exitCode, null, `${flags.join(" ")}: still serving`);
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
      continue;
    }
    assert.equal(await exited, 1);
    assert.match(
      out,
      /^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d couldn't load any hooks from file!\naborting webhook execution since the -verbose flag is set to false\.\nIf, for some reason, you want webhook to run without the hooks, either use -verbose flag, or -nopanic\n$/,
    );
  }
});

test("the start-up line names -ip and -port as given, as Go's log line: a name, an empty host, brackets", async () => {
  const file = join(dir, "addr.json");
  await writeFile(file, JSON.stringify([hook("x")]));
  for (const ip of ["localhost", "", "[127.0.0.1]"]) {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [BIN, "-hooks", file, "-ip", ip, "-port", String(port), "-verbose"],
      {
        cwd: dir,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    children.push(child);
    let log = "";
    child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
    await eventually(async () => log.includes("serving hooks on"), `${ip}: serving`);
    assert.match(
      log,
      new RegExp(`serving hooks on http://${ip.replace(/[[\]]/g, "\\$&")}:${port}/hooks/\\{id\\}\n`),
    );
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/hooks/x`)).text(), "x\n");
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
});

test("with -port 0 the start-up line names the port the kernel chose (upstream prints :0), the host as given", async () => {
  const file = join(dir, "port0.json");
  await writeFile(file, JSON.stringify([hook("x")]));
  const child = spawn(process.execPath, [BIN, "-hooks", file, "-ip", "127.0.0.1", "-port", "0", "-verbose"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  await eventually(async () => log.includes("serving hooks on"), "serving");
  const port = Number(/serving hooks on http:\/\/127\.0\.0\.1:(\d+)\/hooks\/\{id\}\n/.exec(log)?.[1]);
  assert.ok(port > 0, log);
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/hooks/x`)).text(), "x\n");
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGTERM");
  await exited;
});

test("-hotreload follows a hooks file that is a symbolic link: an edit of the file it names reloads, as fsnotify's watch", async () => {
  await mkdir(join(dir, "real"), { recursive: true });
  await mkdir(join(dir, "etc"), { recursive: true });
  const target = join(dir, "real", "linked.json");
  await writeFile(target, JSON.stringify([hook("before")]));
  await symlink("../real/linked.json", join(dir, "etc", "linked.json"));
  const { base } = await start(["-hooks", join(dir, "etc", "linked.json"), "-hotreload", "-verbose"]);
  assert.equal((await fetch(`${base}/hooks/before`)).status, 200);
  await writeFile(target, JSON.stringify([hook("after")]));
  await eventually(
    async () => (await fetch(`${base}/hooks/after`)).status === 200,
    "the link's file reloaded",
  );
  assert.equal((await fetch(`${base}/hooks/before`)).status, 404);
});
