import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { DatedResponse, httpDate } from "./dated-response.js";

test("httpDate formats as Date.prototype.toUTCString does", () => {
  const edges = [0, 951782400000, 1764339326951, 253402300799999, -1, -62167219200000];
  const random = Array.from(
    { length: 2000 },
    () => Math.floor(Math.random() * 315569520000000) - 62167219200000,
  );
  for (const ms of [...edges, ...random]) assert.equal(httpDate(ms), new Date(ms).toUTCString(), `${ms}`);
});

/** The header names of a GET's answer, in the order sent, and its Date. */
function headersOf(port: number, path = "/"): Promise<{ names: string[]; date: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: "127.0.0.1", path, agent: false }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ names: res.rawHeaders.filter((_v, i) => i % 2 === 0), date: res.headers.date ?? "" }),
      );
    })
      .on("error", reject)
      .end();
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

test("a DatedResponse sends the current Date where node's sendDate puts it, or the handler's own", async (t) => {
  const server = createServer({ ServerResponse: DatedResponse }, (req, res) => {
    if (req.url === "/own") res.writeHead(200, { Date: "Thu, 01 Jan 1970 00:00:00 GMT" }).end();
    else if (req.url === "/raw") res.writeHead(200, ["Content-Type", "text/plain"]).end("ok");
    else if (req.url === "/implicit") {
      res.setHeader("X-A", "1");
      res.end("ok");
    } else res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": "2" }).end("ok");
  });
  // node's own Date, for the order.
  const plain = createServer((_req, res) => {
    res.setHeader("X-A", "1");
    res.end("ok");
  });
  t.after(() => {
    server.close();
    plain.close();
  });
  const port = await listening(server);
  const before = Date.now();
  const answer = await headersOf(port);
  const sent = Date.parse(answer.date);
  assert.ok(sent >= Math.floor(before / 1000) * 1000 && sent <= Date.now(), answer.date);
  assert.deepEqual(answer.names, ["Content-Type", "Content-Length", "Date", "Connection"]);
  const implicit = await headersOf(port, "/implicit");
  assert.deepEqual(implicit.names, ["X-A", "Date", "Connection", "Content-Length"]);
  assert.deepEqual((await headersOf(await listening(plain))).names, implicit.names);
  const own = await headersOf(port, "/own");
  assert.equal(own.date, "Thu, 01 Jan 1970 00:00:00 GMT");
  assert.equal(own.names.filter((n) => n === "Date").length, 1);
  const raw = await headersOf(port, "/raw");
  assert.ok(Date.parse(raw.date) >= Math.floor(before / 1000) * 1000, `raw headers keep a Date: ${raw.date}`);
});
