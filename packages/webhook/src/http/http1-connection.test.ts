import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import type { Http1Request, Http1Respond } from "./http1-request.js";
import { serveHttp1 } from "./serve-http1.js";

/** A node:http server whose own requests are recorded, with the wire reader in front of it. */
async function withServer(
  serve: (req: Http1Request, respond: Http1Respond) => Promise<void> | void,
  run: (port: number, ctx: { server: Server; nodeRequests: string[] }) => Promise<void>,
  limits: { maxHeaderBytes?: number; maxBodyBytes?: number } = {},
): Promise<void> {
  const nodeRequests: string[] = [];
  const server = createServer((req, res) => {
    nodeRequests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => res.end("from node"));
  });
  serveHttp1(server, {
    serve: async (req, respond) => serve(req, respond),
    maxHeaderBytes: limits.maxHeaderBytes ?? 64 * 1024,
    maxBodyBytes: limits.maxBodyBytes ?? 0,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await run((server.address() as { port: number }).port, { server, nodeRequests });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** Sends the bytes and collects the answer until the server closes or goes quiet for `quietMs` (200 ms). */
function talk(
  port: number,
  data: string,
  quietMs = 200,
): Promise<{ text: string; closed: boolean; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(data));
    let text = "";
    let quiet: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(quiet);
      resolve({ text: text.replace(/^Date: .*$/gm, "Date: -"), closed, socket });
    };
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(false), quietMs);
    });
    socket.on("end", () => finish(true));
    socket.on("error", () => finish(true));
  });
}

/** Resolves once `done()` holds, checking every 10 ms, or after `deadlineMs` (the assertion after it then fails). */
async function waitFor(done: () => boolean, deadlineMs = 5_000): Promise<void> {
  for (let waited = 0; waited < deadlineMs && !done(); waited += 10)
    await new Promise((r) => setTimeout(r, 10));
}

const ok = (_req: Http1Request, respond: Http1Respond) =>
  respond(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "2" }, "ok");

test("serveHttp1 reads a plain request and writes the headers in order, Date before Content-Length", async () => {
  let seen: Http1Request | undefined;
  await withServer(
    (req, respond) => {
      seen = req;
      respond(202, { "X-B": "2", "Content-Length": "4", "A-A": ["1", "one"] }, "done");
    },
    async (port, { nodeRequests }) => {
      const { text, closed } = await talk(
        port,
        "PATCH /a?b=c HTTP/1.1\r\nHost: h\r\nX-Dup: 1\r\nx-dup:  2 \r\nContent-Length: 3\r\n\r\nabc",
      );
      assert.equal(
        text,
        "HTTP/1.1 202 Accepted\r\nX-B: 2\r\nDate: -\r\nContent-Length: 4\r\nA-A: 1\r\nA-A: one\r\n\r\ndone",
      );
      assert.equal(closed, false);
      assert.deepEqual(nodeRequests, []);
    },
  );
  assert.equal(seen?.bodyError(), undefined);
  assert.deepEqual(seen && { ...seen, body: seen.body.toString(), bodyError: undefined }, {
    method: "PATCH",
    url: "/a?b=c",
    path: "/a",
    query: "b=c",
    httpVersion: "1.1",
    rawHeaders: ["Host", "h", "X-Dup", "1", "x-dup", "2", "Content-Length", "3"],
    body: "abc",
    // The body came with the head: there is nothing left to read.
    readBody: undefined,
    bodyError: undefined,
  });
});

const refused = (status: string, body = status) =>
  `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;

test("serveHttp1 refuses what Go's server refuses, with Go's answer, and reads nothing after it", async () => {
  const served: string[] = [];
  await withServer(
    (req, respond) => {
      served.push(req.url);
      ok(req, respond);
    },
    async (port, { nodeRequests }) => {
      const after = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n";
      const cases: [string, string][] = [
        ["GET /lf HTTP/1.1\nHost: h\n\n", refused("400 Bad Request")],
        ["GET /folded HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  more\r\n\r\n", refused("400 Bad Request")],
        [
          "GET /two HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 1\r\n\r\n",
          refused("400 Bad Request"),
        ],
        ["GET /hosts HTTP/1.1\r\nHost: h\r\nHost: i\r\n\r\n", refused("400 Bad Request")],
        ["GET /nohost HTTP/1.1\r\n\r\n", refused("400 Bad Request: missing required Host header")],
        ["GET /badhost HTTP/1.1\r\nHost: a b\r\n\r\n", refused("400 Bad Request: malformed Host header")],
        [
          "GET /v HTTP/0.9\r\nHost: h\r\n\r\n",
          refused("505 HTTP Version Not Supported: unsupported protocol version"),
        ],
        [
          "GET /v HTTP/2.0\r\nHost: h\r\n\r\n",
          refused("505 HTTP Version Not Supported: unsupported protocol version"),
        ],
        ["GET  /two-spaces HTTP/1.1\r\nHost: h\r\n\r\n", refused("400 Bad Request")],
        ["GET /bad%zzescape HTTP/1.1\r\nHost: h\r\n\r\n", refused("400 Bad Request")],
        ["GET /cl HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\n", refused("400 Bad Request")],
        [
          "POST /expect HTTP/1.1\r\nHost: h\r\nExpect: something-else\r\nContent-Length: 0\r\n\r\n",
          "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: -\r\nContent-Length: 0\r\n\r\n",
        ],
      ];
      for (const [request, answer] of cases) {
        const { text, closed } = await talk(port, request + after);
        assert.equal(text, answer, request);
        assert.equal(closed, true, request);
      }
      assert.deepEqual(nodeRequests, []);
    },
  );
  assert.deepEqual(served, []);
});

test("serveHttp1 reads nothing after an answer that closes: Connection: close, HTTP/1.0", async () => {
  const served: string[] = [];
  await withServer(
    (req, respond) => {
      served.push(req.url);
      ok(req, respond);
    },
    async (port) => {
      const after = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n";
      for (const request of [
        "GET /close HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        "GET /old HTTP/1.0\r\n\r\n",
      ]) {
        const { text, closed } = await talk(port, request + after);
        assert.equal(text.match(/200 OK/g)?.length, 1, text);
        assert.equal(closed, true);
      }
    },
  );
  assert.deepEqual(served, ["/close", "/old"]);
});

test("serveHttp1 routes an absolute-form target on its path, and ignores Transfer-Encoding on HTTP/1.0 as Go", async () => {
  const served: string[] = [];
  await withServer(
    (req, respond) => {
      served.push(`${req.method} ${req.url} ${req.path} ${req.query}`);
      ok(req, respond);
    },
    async (port) => {
      const absolute = await talk(port, "GET http://h/abs/x?q=1 HTTP/1.1\r\nHost: h\r\n\r\n");
      assert.match(absolute.text, /\r\n\r\nok$/);
      // The chunks are no body on HTTP/1.0: they are read as the next request, which Go refuses.
      const old = await talk(
        port,
        "POST /old HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      );
      assert.match(old.text, /^HTTP\/1\.0 200 OK\r\n[\s\S]*okHTTP\/1\.1 400 Bad Request\r\n/);
      assert.equal(old.closed, true);
    },
  );
  assert.deepEqual(served, ["GET http://h/abs/x?q=1 /abs/x q=1", "POST /old /old "]);
});

test("serveHttp1 reads chunked bodies (extensions, trailers, split writes) and drops a Content-Length beside them", async () => {
  const seen: [string, readonly string[]][] = [];
  await withServer(
    async (req, respond) => {
      const body = req.readBody === undefined ? req.body : await req.readBody();
      seen.push([body.toString(), req.rawHeaders]);
      ok(req, respond);
    },
    async (port, { nodeRequests }) => {
      const chunked =
        "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\nContent-Length: 99\r\n\r\n";
      const body = "3;ext=1\r\nabc\r\nA \r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n";
      const { text } = await talk(port, chunked + body + chunked + body);
      assert.equal(text.match(/\r\n\r\nok/g)?.length, 2, text);
      const split = connect(port, "127.0.0.1");
      let answer = "";
      split.on("data", (c: Buffer) => (answer += c.toString()));
      for (const piece of [chunked, "3\r\nab", "c\r\n", "0\r\n", "\r\n"]) {
        split.write(piece);
        await new Promise((r) => setTimeout(r, 20));
      }
      await waitFor(() => answer.endsWith("ok"));
      assert.match(answer, /\r\n\r\nok$/);
      split.destroy();
      assert.deepEqual(nodeRequests, []);
    },
  );
  assert.deepEqual(seen, [
    ["abc0123456789", ["Host", "h", "Transfer-Encoding", "Chunked"]],
    ["abc0123456789", ["Host", "h", "Transfer-Encoding", "Chunked"]],
    ["abc", ["Host", "h", "Transfer-Encoding", "Chunked"]],
  ]);
});

test("serveHttp1 refuses transfer codings other than a lone chunked with Go's 501", async () => {
  await withServer(ok, async (port, { nodeRequests }) => {
    for (const coding of ["gzip, chunked", "identity", "chunked\r\nTransfer-Encoding: chunked"]) {
      const { text, closed } = await talk(
        port,
        `POST /te HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: ${coding}\r\n\r\n0\r\n\r\n`,
      );
      assert.equal(
        text,
        "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nUnsupported transfer encoding",
      );
      assert.equal(closed, true);
    }
    assert.deepEqual(nodeRequests, []);
  });
});

test("serveHttp1 serves a broken chunked body with what came before it, says close, and reads nothing after", async () => {
  const bodies: string[] = [];
  const errors: (string | undefined)[] = [];
  await withServer(
    async (req, respond) => {
      bodies.push((req.readBody === undefined ? req.body : await req.readBody()).toString());
      errors.push(req.bodyError());
      ok(req, respond);
    },
    async (port) => {
      const head = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
      const after = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n";
      for (const body of [
        "3\r\nabcX\r\n0\r\n\r\n",
        "3\r\nabc\r\n00000000000000001\r\nd\r\n0\r\n\r\n",
        "3\r\nabc\r\n1 ;ext\r\nd\r\n0\r\n\r\n",
        "3\r\nabc\r\n0\r\nno colon\r\n\r\n",
        `3\r\nabc\r\n1;${"e".repeat(5000)}\r\nd\r\n0\r\n\r\n`,
      ]) {
        const { text, closed } = await talk(port, head + body + after);
        assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n\r\nok$/, body);
        assert.equal(closed, true);
      }
      // Go's limits, just within: 16 hex digits, blanks after the size, a 4 KiB line, a trailer.
      const fine = await talk(
        port,
        `${head}0000000000000003 \r\nabc\r\n1;${"e".repeat(4000)}\r\nd\r\n0\r\nA: b\r\n\r\n${after}`,
      );
      assert.equal(fine.text.match(/200 OK/g)?.length, 2, fine.text);
    },
  );
  assert.deepEqual(bodies, ["abc", "abc", "abc", "abc", "abc", "abcd", ""]);
  // Go's errors, which webhook logs (`error reading the request body: …`).
  assert.deepEqual(errors, [
    "malformed chunked encoding",
    "http chunk length too large",
    "invalid byte in chunk length",
    'malformed MIME header: missing colon: "no colon"',
    "header line too long",
    undefined,
    undefined,
  ]);
});

test("serveHttp1: 431 past the header limit, 413 past the body limit (declared or chunked)", async () => {
  await withServer(
    ok,
    async (port, { nodeRequests }) => {
      const big = await talk(port, `GET /big HTTP/1.1\r\nHost: h\r\nX-Big: ${"a".repeat(2000)}\r\n\r\n`);
      assert.equal(big.text, refused("431 Request Header Fields Too Large"));
      for (const request of [
        `POST /body HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n${"b".repeat(101)}`,
        `POST /body HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n${"b".repeat(101)}\r\n0\r\n\r\n`,
      ]) {
        const body = await talk(port, request);
        assert.match(
          body.text,
          /^HTTP\/1\.1 413 Request Entity Too Large\r\n[\s\S]*\r\n\r\nRequest body too large\.$/,
        );
        assert.equal(body.closed, true);
      }
      const small = await talk(
        port,
        `POST /small HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n${"b".repeat(100)}`,
      );
      assert.match(small.text, /\r\n\r\nok$/);
      assert.deepEqual(nodeRequests, []);
    },
    { maxHeaderBytes: 1024, maxBodyBytes: 100 },
  );
});

test("serveHttp1: a body the handler does not read is dropped as Go's finishRequest drops it", async () => {
  await withServer(ok, async (port) => {
    // A small one still coming: read to its end, then answered, and the connection stays.
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString()));
    socket.write("POST /small HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n01234");
    await new Promise((r) => setTimeout(r, 50));
    socket.write("56789GET /next HTTP/1.1\r\nHost: h\r\n\r\n");
    await waitFor(() => (text.match(/200 OK/g)?.length ?? 0) >= 2);
    assert.equal(text.match(/200 OK/g)?.length, 2, text);
    assert.doesNotMatch(text, /Connection: close/);
    socket.destroy();
    // A declared one of 256 KiB or more: answered at once with Connection: close.
    const big = await talk(port, "POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: 300000\r\n\r\nabc");
    assert.match(big.text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n\r\nok$/);
    // An endless chunked one: answered, with Connection: close, once 256 KiB of it were dropped.
    const endless = connect(port, "127.0.0.1");
    let answer = "";
    endless.on("data", (c: Buffer) => (answer += c.toString()));
    endless.on("error", () => undefined);
    endless.write("POST /endless HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
    const chunk = `4000\r\n${"x".repeat(0x4000)}\r\n`;
    for (let i = 0; i < 20 && answer === ""; i++) {
      endless.write(chunk);
      await new Promise((r) => setTimeout(r, 10));
    }
    await waitFor(() => answer.endsWith("ok"));
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n\r\nok$/);
    endless.destroy();
  });
});

test("serveHttp1 never writes a header it cannot frame: bad names dropped, CR and LF made spaces", async () => {
  await withServer(
    (_req, respond) =>
      respond(200, { "Bad Name": "x", "X-Inject": "a\r\nSet-Cookie: b", "Content-Length": "0" }, ""),
    async (port) => {
      const { text } = await talk(port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
      assert.equal(
        text,
        "HTTP/1.1 200 OK\r\nX-Inject: a  Set-Cookie: b\r\nDate: -\r\nContent-Length: 0\r\n\r\n",
      );
    },
  );
});

test("serveHttp1 drops the connection when serving fails or never answers", async () => {
  await withServer(
    (req, respond) => {
      if (req.url === "/throw") throw new Error("boom");
      if (req.url === "/bad-status") respond(42, {}, "");
    },
    async (port) => {
      for (const path of ["/throw", "/bad-status", "/silent"]) {
        const { text, closed } = await talk(port, `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
        assert.equal(text, "", path);
        assert.equal(closed, true, path);
      }
    },
  );
});

test("serveHttp1: close() ends idle kept-alive connections, and a busy one after its answer", async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await withServer(
    async (req, respond) => {
      if (req.url === "/hold") await held;
      ok(req, respond);
    },
    async (port, { server }) => {
      const idle = await talk(port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
      assert.equal(idle.closed, false);
      const idleClosed = new Promise<void>((resolve) => idle.socket.on("close", () => resolve()));
      const busy = talk(port, "GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
      await new Promise((r) => setTimeout(r, 50));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await idleClosed;
      release();
      const answer = await busy;
      assert.match(answer.text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/);
      answer.socket.destroy();
      await closed;
    },
  );
});

test("serveHttp1: clients that leave mid-body or while their request is served do not take the server down", async () => {
  await withServer(
    async (req, respond) => {
      await new Promise((r) => setTimeout(r, 100));
      ok(req, respond);
    },
    async (port) => {
      for (const data of [
        "POST /cut HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n0123456789",
        "GET /left HTTP/1.1\r\nHost: h\r\n\r\n",
      ]) {
        const socket = connect(port, "127.0.0.1", () => socket.write(data, () => socket.resetAndDestroy()));
        socket.on("error", () => undefined);
      }
      await new Promise((r) => setTimeout(r, 300));
      const { text } = await talk(port, "GET /after HTTP/1.1\r\nHost: h\r\n\r\n");
      assert.match(text, /\r\n\r\nok$/);
    },
  );
});

test("serveHttp1 reads a header value of 1 MB of spaces in linear time, trimmed", {
  timeout: 20_000,
}, async () => {
  const seen: string[] = [];
  await withServer(
    (req, respond) => {
      seen.push(req.rawHeaders[3] as string);
      ok(req, respond);
    },
    async (port) => {
      const { text } = await talk(
        port,
        `GET / HTTP/1.1\r\nHost: h\r\nX-A:  a${" ".repeat(1_000_000)}b \t\r\n\r\n`,
      );
      assert.match(text, /\r\n\r\nok$/);
    },
    { maxHeaderBytes: 2_000_000 },
  );
  assert.equal(seen[0]?.length, 1_000_002);
  assert.ok(seen[0]?.startsWith("a ") && seen[0]?.endsWith(" b"));
});

test("serveHttp1: Expect: 100-continue sends 100 only when the body is read, chunked bodies included", async () => {
  const bodies: string[] = [];
  await withServer(
    async (req, respond) => {
      if (req.url === "/read" && req.readBody !== undefined) bodies.push((await req.readBody()).toString());
      ok(req, respond);
    },
    async (port) => {
      const expect = (path: string) =>
        `POST ${path} HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const socket = connect(port, "127.0.0.1");
      let text = "";
      socket.on("data", (c: Buffer) => (text += c.toString()));
      socket.write(expect("/read"));
      await waitFor(() => text !== "");
      assert.equal(text, "HTTP/1.1 100 Continue\r\n\r\n");
      socket.write("3\r\nabc\r\n0\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n");
      await waitFor(() => (text.match(/200 OK/g)?.length ?? 0) >= 2);
      assert.equal(text.match(/200 OK/g)?.length, 2, text);
      socket.destroy();
      const skipped = await talk(port, expect("/skip"));
      assert.match(skipped.text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/);
      skipped.socket.destroy();
    },
  );
  assert.deepEqual(bodies, ["abc"]);
});

test("serveHttp1: a 2 MB body sent before the handler asks for it (Expect) is still read whole", async () => {
  let size = -1;
  await withServer(
    async (req, respond) => {
      await new Promise((r) => setTimeout(r, 100));
      size = req.readBody === undefined ? -2 : (await req.readBody()).length;
      ok(req, respond);
    },
    async (port) => {
      const body = "x".repeat(2_000_000);
      const { text } = await talk(
        port,
        `POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        // Between the 100 and the answer, 2 MB are read and handed over: seconds on a loaded machine.
        5_000,
      );
      assert.match(text, /\r\n\r\nok$/);
    },
    { maxHeaderBytes: 1024 },
  );
  assert.equal(size, 2_000_000);
});
