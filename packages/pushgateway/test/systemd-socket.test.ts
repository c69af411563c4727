// --web.systemd-socket: the gateway serves on the listening socket it inherits as fd 3 (LISTEN_FDS=1, LISTEN_PID
// its own pid, as systemd passes it), not on --web.listen-address; without such a socket it refuses to start.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, test } from "node:test";
import { GATEWAY_BIN, startProcess, stopAll } from "./support/processes.js";
import { runUntilExit } from "./support/run-until-exit.js";

after(stopAll);

test("serves on the socket passed as fd 3, as systemd socket activation does", async () => {
  const socket: Server = createServer();
  await new Promise<void>((resolve) => socket.listen(0, "127.0.0.1", resolve));
  const { port } = socket.address() as { port: number };
  // The listening socket's descriptor, duplicated into the child as its fd 3.
  const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
  try {
    // LISTEN_PID must be the gateway's own pid: `exec` keeps the shell's ($$) for it.
    await startProcess(
      "/bin/sh",
      ["-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$1" --web.systemd-socket`, process.execPath, GATEWAY_BIN],
      { ready: /msg="Listening on" address=/, stdio: ["ignore", "pipe", "pipe", fd] },
    );
    // The parent stops accepting on its copy so every connection reaches the gateway.
    socket.close();
    const push = await fetch(`http://127.0.0.1:${port}/metrics/job/activated`, {
      method: "PUT",
      body: "m 1\n",
    });
    assert.equal(push.status, 200);
    assert.match(
      await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
      /^m\{instance="",job="activated"\} 1$/m,
    );
  } finally {
    socket.close();
  }
});

test("without an activated socket it logs the error and exits 1", async () => {
  const r = await runUntilExit(process.execPath, [GATEWAY_BIN, "--web.systemd-socket"]);
  assert.equal(r.code, 1);
  assert.match(r.log, /level=error msg="Error listening: no socket activation file descriptors found"/);
});

test("a LISTEN_FDS past any socket unit (100000000) is refused naming it, at once", async () => {
  const r = await runUntilExit("/bin/sh", [
    "-c",
    `LISTEN_PID=$$ LISTEN_FDS=100000000 exec "$0" "$1" --web.systemd-socket`,
    process.execPath,
    GATEWAY_BIN,
  ]);
  assert.equal(r.code, 1);
  assert.match(
    r.log,
    /level=error msg="Error listening: LISTEN_FDS=100000000 is more than the 1024 descriptors a socket unit passes"/,
  );
});

test("serves on every socket passed (LISTEN_FDS=2: fds 3 and 4), as exporter-toolkit's ServeMultiple", async () => {
  const sockets: Server[] = [createServer(), createServer()];
  for (const s of sockets) await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const ports = sockets.map((s) => (s.address() as { port: number }).port);
  const fds = sockets.map((s) => (s as unknown as { _handle: { fd: number } })._handle.fd);
  try {
    await startProcess(
      "/bin/sh",
      ["-c", `LISTEN_PID=$$ LISTEN_FDS=2 exec "$0" "$1" --web.systemd-socket`, process.execPath, GATEWAY_BIN],
      { ready: /Listening on(.|\n)*Listening on/, stdio: ["ignore", "pipe", "pipe", ...fds] },
    );
    for (const s of sockets) s.close();
    for (const port of ports) {
      const push = await fetch(`http://127.0.0.1:${port}/metrics/job/p${port}`, {
        method: "PUT",
        body: "m 1\n",
      });
      assert.equal(push.status, 200, `:${port}`);
    }
    const text = await (await fetch(`http://127.0.0.1:${ports[0]}/metrics`)).text();
    for (const port of ports) assert.match(text, new RegExp(`^m\\{instance="",job="p${port}"\\} 1$`, "m"));
  } finally {
    for (const s of sockets) s.close();
  }
});
