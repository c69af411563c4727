// Kept-alive connections, beside Debian's prometheus-pushgateway 1.5.1: Go's http.Server has no idle timeout, so a
// pusher or scraper may leave its connection idle between requests and use it again.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { freePort, startGateway } from "./start-gateway.js";

const PEER = "/usr/bin/prometheus-pushgateway";
const children: ChildProcess[] = [];
const ports: Record<"peer" | "ours", number> = { peer: 0, ours: 0 };

before(async () => {
  const ours = await startGateway();
  children.push(ours.child);
  ports.ours = Number(new URL(ours.base).port);
  ports.peer = await freePort();
  const peer = spawn(PEER, [`--web.listen-address=127.0.0.1:${ports.peer}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(peer);
  await new Promise<void>((resolve, reject) => {
    let log = "";
    peer.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
      if (log.includes("Listening on")) resolve();
    });
    peer.on("exit", (code) => reject(new Error(`${PEER} exited ${code}: ${log}`)));
  });
});

after(() => {
  for (const c of children) c.kill("SIGKILL");
});

/** Two requests on one connection, the second after 6 s idle; resolves with both raw answers. */
function idleSession(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const answers: string[] = [];
    let text = "";
    const ask = () => socket.write(`GET /-/healthy HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
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
}

test("a kept-alive connection idle for 6 s still serves, on both; no Keep-Alive header", async () => {
  const [peer, ours] = await Promise.all([idleSession(ports.peer), idleSession(ports.ours)]);
  for (const answers of [peer, ours]) {
    assert.equal(answers?.length, 2);
    for (const a of answers ?? []) assert.doesNotMatch(a, /^keep-alive:/im);
  }
});
