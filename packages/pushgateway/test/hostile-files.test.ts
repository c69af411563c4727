// Files that are not regular files where the gateway reads one (the web config, the certificate, key and CA files
// it names, the persistence file, the Redis password file): each is refused at once naming the path and its type,
// never read (a FIFO without a writer would block the process for good; /dev/zero never ends). A certificate that
// turns into a FIFO while serving fails the handshakes until it is restored, and the next one after that works.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, rename, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { GATEWAY_BIN, startGateway, stopAll } from "./support/processes.js";
import { runUntilExit } from "./support/run-until-exit.js";
import { withTempDir } from "./support/temp-dir.js";
import { tlsAttempt } from "./support/tls-attempt.js";

const DATA = fileURLToPath(new URL("../../test/fixtures/web-config/", import.meta.url));
const sockets: Server[] = [];
after(async () => {
  for (const s of sockets) s.close();
  await stopAll();
});

/** Makes `path` a file of `kind` (not a regular file); resolves with the type the refusal must name. */
async function makeHostile(path: string, kind: "fifo" | "directory" | "socket"): Promise<string> {
  if (kind === "fifo") {
    execFileSync("mkfifo", [path]);
    return "is a named pipe \\(FIFO\\), not a regular file";
  }
  if (kind === "directory") {
    await mkdir(path);
    return "is a directory, not a regular file";
  }
  const server = createServer();
  sockets.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return "is a socket, not a regular file";
}

const KINDS = ["fifo", "directory", "socket"] as const;

/** Runs ours with `args`; it must exit 1 within the deadline, before listening, with `pattern` in its log. */
async function refusedAtStart(args: string[], pattern: RegExp): Promise<void> {
  const started = Date.now();
  const run = await runUntilExit(process.execPath, [
    GATEWAY_BIN,
    "--web.listen-address=127.0.0.1:0",
    ...args,
  ]);
  assert.equal(run.code, 1, run.log);
  assert.equal(run.listened, false);
  assert.match(run.log, pattern);
  assert.ok(Date.now() - started < 15_000, `refused in ${Date.now() - started} ms`);
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test("--web.config.file that is a FIFO, a directory, a socket or a device: refused at start naming path and type", async () => {
  await withTempDir("pgw-hostile-", async (dir) => {
    for (const kind of KINDS) {
      const path = join(dir, `web-${kind}.yml`);
      const type = await makeHostile(path, kind);
      await refusedAtStart(
        [`--web.config.file=${path}`],
        new RegExp(`Cannot load web config: ${literal(path)}: open ${literal(path)}: ${type}`),
      );
    }
    await refusedAtStart(
      ["--web.config.file=/dev/zero"],
      /Cannot load web config: \/dev\/zero: open \/dev\/zero: is a character device, not a regular file/,
    );
    // Over the documented size limit: refused before it is read.
    const big = join(dir, "big.yml");
    await writeFile(big, `# ${"x".repeat(1024 * 1024)}\n`);
    await refusedAtStart(
      [`--web.config.file=${big}`],
      /is 1048579 bytes, over the limit of 1048576 bytes for --web\.config\.file/,
    );
  });
});

test("cert_file, key_file or client_ca_file that is not a regular file: refused at start naming it", async () => {
  await withTempDir("pgw-hostile-", async (dir) => {
    for (const [key, kind] of [
      ["cert_file", "fifo"],
      ["key_file", "socket"],
      ["client_ca_file", "directory"],
    ] as const) {
      const hostile = join(dir, `${key}-${kind}`);
      const type = await makeHostile(hostile, kind);
      const files = {
        cert_file: join(DATA, "server.crt"),
        key_file: join(DATA, "server.key"),
        client_ca_file: undefined as string | undefined,
        [key]: hostile,
      };
      const config = join(dir, `${key}.yml`);
      await writeFile(
        config,
        `tls_server_config:\n  cert_file: ${files.cert_file}\n  key_file: ${files.key_file}\n${
          files.client_ca_file
            ? `  client_ca_file: ${files.client_ca_file}\n  client_auth_type: RequireAndVerifyClientCert\n`
            : ""
        }`,
      );
      await refusedAtStart([`--web.config.file=${config}`], new RegExp(`${literal(hostile)}: ${type}`));
    }
  });
});

test("a cert_file that becomes a FIFO while serving fails handshakes quickly, and the next one after it is restored works", async () => {
  await withTempDir("pgw-hostile-", async (dir) => {
    const cert = join(dir, "server.crt");
    await copyFile(join(DATA, "server.crt"), cert);
    const config = join(dir, "web.yml");
    await writeFile(
      config,
      `tls_server_config:\n  cert_file: ${cert}\n  key_file: ${join(DATA, "server.key")}\n`,
    );
    const { base } = await startGateway([`--web.config.file=${config}`]);
    const port = Number(new URL(base).port);
    assert.equal((await tlsAttempt(port)).status, "HTTP/1.1 200 OK");
    // A configuration tool mid-write: the certificate is a FIFO nobody writes to.
    await rename(cert, join(dir, "server.crt.saved"));
    execFileSync("mkfifo", [cert]);
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const outcome = await tlsAttempt(port);
      assert.equal(outcome.status, undefined, "no answer while the certificate is a FIFO");
      assert.ok(Date.now() - started < 3000, `refused in ${Date.now() - started} ms, not held`);
    }
    await rename(join(dir, "server.crt.saved"), cert);
    assert.equal((await tlsAttempt(port)).status, "HTTP/1.1 200 OK");
  });
});

test("a persistence file or Redis password file that is not a regular file: refused at start naming path and type", async () => {
  await withTempDir("pgw-hostile-", async (dir) => {
    for (const kind of KINDS) {
      const path = join(dir, `persist-${kind}`);
      const type = await makeHostile(path, kind);
      await refusedAtStart(
        [`--persistence.file=${path}`],
        new RegExp(`Cannot read persistence file \\\\"${literal(path)}\\\\": open ${literal(path)}: ${type}`),
      );
    }
    await refusedAtStart(
      ["--persistence.file=/dev/zero"],
      /Cannot read persistence file \\"\/dev\/zero\\": open \/dev\/zero: is a character device, not a regular file/,
    );
    const fifo = join(dir, "password");
    execFileSync("mkfifo", [fifo]);
    await refusedAtStart(
      ["--storage.redis-url=redis://127.0.0.1:1/0", `--storage.redis-password-file=${fifo}`],
      new RegExp(`${literal(fifo)}: is a named pipe \\(FIFO\\), not a regular file`),
    );
  });
});
