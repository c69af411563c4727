// Files read at run time that are not regular files (a named pipe a config-management tool is writing through, a
// socket, a device, a directory, a file that keeps growing) never block webhook: each is refused naming its path and
// type, at start and on every reload, the hooks and the certificate served before stay, and SIGTERM still ends the
// process. Also the environment systemd gives: a huge LISTEN_FDS and a passed descriptor that is no socket.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { appendFileSync } from "node:fs";
import { copyFile, type FileHandle, mkdir, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect as connectTls } from "node:tls";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";

const PAIRS = fileURLToPath(new URL("../../test/fixtures/tls-reload/", import.meta.url));
const servers = new ServerGroup();
const sockets: Server[] = [];
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-hostile-"));
});

after(async () => {
  await servers.stopAll();
  for (const s of sockets) s.close();
  await rm(dir, { recursive: true, force: true });
});

const hooks = (...ids: string[]) =>
  JSON.stringify(ids.map((id) => ({ id, "execute-command": "/bin/true", "response-message": `${id} ran` })));

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/** A Unix socket file at `path`, listening until the tests end. */
async function unixSocketFile(path: string): Promise<void> {
  const server = createServer();
  sockets.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, log: () => string) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`never happened: ${what}\n${log()}`);
}

/** Resolves with the exit code, or fails the test when the process is still running after `ms`. */
async function exitWithin(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  const result = await Promise.race([exited, late]);
  clearTimeout(timer);
  assert.notEqual(result, "late", `still running ${ms} ms after SIGTERM`);
  return result as number | null;
}

test("hooks files that are a FIFO, a socket, a device or a directory are refused by path and type; a growing one loads", async () => {
  const good = join(dir, "good.json");
  const fifo = join(dir, "hooks.fifo");
  const socket = join(dir, "hooks.sock");
  const directory = join(dir, "hooks.d");
  const growing = join(dir, "growing.json");
  await writeFile(good, hooks("good"));
  mkfifo(fifo);
  await unixSocketFile(socket);
  await mkdir(directory);
  await writeFile(growing, hooks("grown"));
  // A writer that keeps appending blank lines (still valid YAML) while webhook reads the file.
  const writer = setInterval(() => appendFileSync(growing, "\n".repeat(4096)), 1);
  const port = await freePort();
  const args = ["-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  for (const file of [good, fifo, socket, "/dev/zero", directory, growing]) args.push("-hooks", file);
  try {
    const server = await servers.start(process.execPath, [OUR_WEBHOOK, ...args], {
      ready: "serving hooks on http://",
    });
    const log = server.log();
    assert.match(
      log,
      new RegExp(
        `couldn't load hooks from file! open ${fifo}: is a named pipe \\(FIFO\\), not a regular file`,
      ),
    );
    assert.match(
      log,
      new RegExp(`couldn't load hooks from file! open ${socket}: is a socket, not a regular file`),
    );
    assert.match(
      log,
      /couldn't load hooks from file! open \/dev\/zero: is a character device, not a regular file/,
    );
    // Go's text for a directory, as upstream prints it.
    assert.match(log, new RegExp(`couldn't load hooks from file! read ${directory}: is a directory`));
    for (const id of ["good", "grown"]) {
      const answer = await fetch(`http://127.0.0.1:${port}/hooks/${id}`);
      assert.equal(await answer.text(), `${id} ran`);
    }
    await servers.stop(server.child);
  } finally {
    clearInterval(writer);
  }
});

test("a template's cat of a FIFO refuses the hooks file instead of blocking the server", async () => {
  const fifo = join(dir, "secret.fifo");
  mkfifo(fifo);
  const file = join(dir, "templated.json");
  await writeFile(
    file,
    `[{"id": "t", "execute-command": "/bin/true", "response-message": "{{ cat "${fifo}" }}"}]`,
  );
  const port = await freePort();
  const server = await servers.start(
    process.execPath,
    [OUR_WEBHOOK, "-template", "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    { ready: "serving hooks on http://" },
  );
  assert.match(
    server.log(),
    new RegExp(
      `couldn't load hooks from file! template: open ${fifo}: is a named pipe \\(FIFO\\), not a regular file`,
    ),
  );
  assert.equal((await fetch(`http://127.0.0.1:${port}/hooks/t`)).status, 404);
  await servers.stop(server.child);
});

test("-secure: -cert a FIFO through several SIGHUPs keeps the old pair, later reloads still work, SIGTERM ends it", async () => {
  const sub = join(dir, "tls");
  await mkdir(sub);
  const cert = join(sub, "cert.pem");
  const key = join(sub, "key.pem");
  const hooksFile = join(sub, "hooks.json");
  await copyFile(join(PAIRS, "first-cert.pem"), cert);
  await copyFile(join(PAIRS, "first-key.pem"), key);
  await writeFile(hooksFile, hooks("before"));
  const port = await freePort();
  const args = ["-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  args.push("-secure", "-cert", cert, "-key", key);
  const server = await servers.start(process.execPath, [OUR_WEBHOOK, ...args], {
    ready: "serving hooks on https://",
  });
  // A config-management tool mid-write: the certificate is a named pipe nobody writes to.
  await rm(cert);
  mkfifo(cert);
  const refusal = `error reloading TLS certificate ${cert} and key ${key}, keeping the previous pair: open ${cert}: is a named pipe (FIFO), not a regular file`;
  // One at a time: signals sent together may arrive as one.
  for (let i = 1; i <= 6; i++) {
    server.child.kill("SIGHUP");
    await eventually(
      () => server.log().split(refusal).length - 1 === i,
      `refused certificate reload ${i}`,
      server.log,
    );
  }
  // The hooks reload after them is not stuck behind the FIFO.
  await writeFile(hooksFile, hooks("after"));
  server.child.kill("SIGHUP");
  await eventually(
    () => server.log().includes("\tloaded: after"),
    "the hooks reload after the FIFO",
    server.log,
  );
  // The certificate put back is loaded on the next reload.
  await rm(cert);
  await copyFile(join(PAIRS, "second-cert.pem"), cert);
  await copyFile(join(PAIRS, "second-key.pem"), key);
  server.child.kill("SIGHUP");
  await eventually(
    () => server.log().includes(`reloaded TLS certificate ${cert} and key ${key}`),
    "the restored pair reloaded",
    server.log,
  );
  server.child.kill("SIGTERM");
  assert.equal(await exitWithin(server.child, 5000), 0);
});

test("-secure: a -cert and a -key that keep growing while read start the server, which serves that pair", async () => {
  const sub = join(dir, "tls-growing");
  await mkdir(sub);
  const cert = join(sub, "cert.pem");
  const key = join(sub, "key.pem");
  const hooksFile = join(sub, "hooks.json");
  await copyFile(join(PAIRS, "first-cert.pem"), cert);
  await copyFile(join(PAIRS, "first-key.pem"), key);
  await writeFile(hooksFile, hooks("tls"));
  // A writer appending blank lines to both (PEM allows text around its blocks) while webhook reads them.
  const writer = setInterval(() => {
    appendFileSync(cert, "\n".repeat(4096));
    appendFileSync(key, "\n".repeat(4096));
  }, 1);
  const port = await freePort();
  const args = ["-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port), "-verbose", "-secure"];
  args.push("-cert", cert, "-key", key);
  try {
    const server = await servers.start(process.execPath, [OUR_WEBHOOK, ...args], {
      ready: "serving hooks on https://",
    });
    const served = await new Promise<string>((resolve, reject) => {
      const socket = connectTls({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? "");
        socket.end();
      });
      socket.once("error", reject);
    });
    const expected = new X509Certificate(await readFile(join(PAIRS, "first-cert.pem"))).fingerprint256;
    assert.equal(served, expected);
    await servers.stop(server.child);
  } finally {
    clearInterval(writer);
  }
});

test("-secure: a -cert or -key that is a FIFO, a socket, a device or a directory is refused at start naming it (upstream's exit 0 after the log)", async () => {
  const sub = join(dir, "tls-start");
  await mkdir(sub);
  const cert = join(sub, "cert.pem");
  const key = join(sub, "key.pem");
  await copyFile(join(PAIRS, "first-cert.pem"), cert);
  await copyFile(join(PAIRS, "first-key.pem"), key);
  const hooksFile = join(sub, "hooks.json");
  await writeFile(hooksFile, hooks("h"));
  const socket = join(sub, "pem.sock");
  await unixSocketFile(socket);
  const fifo = join(sub, "pem.fifo");
  mkfifo(fifo);
  const directory = join(sub, "pem.d");
  await mkdir(directory);
  const notRegular = (path: string, type: string) =>
    new RegExp(`open ${path}: is ${type}, not a regular file`);
  const cases: [string, RegExp][] = [
    [socket, notRegular(socket, "a socket")],
    ["/dev/null", notRegular("/dev/null", "a character device")],
    [fifo, notRegular(fifo, "a named pipe \\(FIFO\\)")],
    // Go's text for reading a directory.
    [directory, new RegExp(`read ${directory}: is a directory`)],
  ];
  for (const flag of ["-cert", "-key"] as const) {
    for (const [path, expected] of cases) {
      const port = await freePort();
      const child = spawn(process.execPath, [
        OUR_WEBHOOK,
        ...["-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port), "-verbose", "-secure"],
        ...["-cert", flag === "-cert" ? path : cert, "-key", flag === "-key" ? path : key],
      ]);
      let log = "";
      child.stderr.on("data", (c: Buffer) => (log += c.toString()));
      try {
        assert.equal(await exitWithin(child, 15000), 0, `${flag} ${path}`);
        assert.match(log, expected, `${flag} ${path}`);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    }
  }
});

/** Runs webhook as `sh` would start it under systemd: `LISTEN_PID` its own pid (exec keeps it), fd 3 as given. */
async function activated(env: Record<string, string>, fd3: "file" | "fifo" | "none") {
  const extra = join(dir, `fd3-${fd3}`);
  let stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
  let file: FileHandle | undefined;
  if (fd3 === "file") {
    await writeFile(extra, "not a socket");
    file = await open(extra, "r");
    stdio = [...stdio, file.fd];
  } else if (fd3 === "fifo") {
    mkfifo(extra);
    // Read and write: opening a FIFO so never waits for the other end.
    file = await open(extra, "r+");
    stdio = [...stdio, file.fd];
  }
  const port = await freePort();
  const script = 'LISTEN_PID=$$ exec "$0" "$@"';
  const child = spawn(
    "sh",
    ["-c", script, process.execPath, OUR_WEBHOOK, "-ip", "127.0.0.1", "-port", String(port)],
    {
      env: { ...process.env, ...env },
      stdio,
    },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  try {
    const code = await exitWithin(child, 15000);
    return { code, out, err };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await file?.close();
  }
}

test("LISTEN_FDS=100000000 is refused at once, naming the count and the one socket supported", async () => {
  const { code, err } = await activated({ LISTEN_FDS: "100000000" }, "none");
  assert.equal(code, 1);
  assert.match(
    err,
    /error listening on socket: received 100000000 sockets from systemd, but only 1 is supported\n$/,
  );
});

test("a descriptor systemd passed that is no socket is refused naming systemd's socket, not -ip/-port", async () => {
  const { code, err } = await activated({ LISTEN_FDS: "1" }, "file");
  assert.equal(code, 1);
  assert.match(
    err,
    /error listening on socket: the socket systemd passed \(file descriptor 3, LISTEN_FDS\) is a regular file, not a socket; check the socket unit that starts webhook\n$/,
  );
  assert.doesNotMatch(err, /127\.0\.0\.1|tcp|-port/);
  const fifo = await activated({ LISTEN_FDS: "1" }, "fifo");
  assert.equal(fifo.code, 1);
  assert.match(
    fifo.err,
    /the socket systemd passed \(file descriptor 3, LISTEN_FDS\) is a named pipe \(FIFO\), not a socket/,
  );
});
