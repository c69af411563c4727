// The wire cases of test/http1-wire.test.ts (ours alone) and test/http1-wire.peers.test.ts (ours beside Debian's
// webhook 2.8.0, the bytes compared): how requests read by our own HTTP/1.x reader must be answered — status line,
// reason phrase, header order, Connection, no length on 204 — however the request arrives: in one write, a byte at a
// time, pipelined, followed by the client's FIN, or cut short.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";

/** The hooks file both servers serve. */
export const HOOKS = [
  {
    id: "rejected",
    "execute-command": "/bin/true",
    "trigger-rule": {
      match: { type: "value", value: "yes", parameter: { source: "payload", name: "token" } },
    },
  },
  { id: "nc", "execute-command": "/bin/true", "success-http-response-code": 204 },
  {
    id: "large",
    "execute-command": "/bin/true",
    "success-http-response-code": 413,
    "response-message": "hi",
  },
  { id: "c509", "execute-command": "/bin/true", "success-http-response-code": 509, "response-message": "hi" },
  {
    id: "size",
    "execute-command": "/bin/sh",
    "include-command-output-in-response": true,
    "pass-arguments-to-command": [
      { source: "string", name: "-c" },
      { source: "string", name: 'printf %s "$BODY" | wc -c' },
    ],
    "pass-environment-to-command": [{ source: "raw-request-body", envname: "BODY" }],
  },
  {
    id: "utf8",
    "execute-command": "/bin/true",
    "response-message": "café ☕",
    "response-headers": [
      { name: "X-Name", value: "café ☕" },
      { name: "A-First", value: " padded\tvalue " },
    ],
  },
  {
    id: "named",
    "execute-command": "/bin/true",
    "response-message": "{}",
    "response-headers": [
      { name: "x-a", value: "1" },
      { name: "X-A", value: "2" },
      { name: "content-type", value: "application/json" },
    ],
  },
  {
    id: "output",
    "execute-command": "/bin/sh",
    "include-command-output-in-response": true,
    "pass-arguments-to-command": [
      { source: "string", name: "-c" },
      { source: "string", name: 'printf "%$1s" x' },
      { source: "string", name: "sh" },
      { source: "url", name: "n" },
    ],
  },
  { id: "fails", "execute-command": "/bin/false", "include-command-output-in-response": true },
  {
    id: "header",
    "execute-command": "/usr/bin/printf",
    "include-command-output-in-response": true,
    "pass-arguments-to-command": [
      { source: "string", name: "%s|%s" },
      { source: "header", name: "X-Name" },
      { source: "entire-headers", name: "" },
    ],
  },
  { id: "post-only", "execute-command": "/bin/true", "http-methods": ["POST"] },
  {
    id: "early",
    "execute-command": "/bin/true",
    "response-message": "m",
    "success-http-response-code": 103,
    "response-headers": [{ name: "X-A", value: "1" }],
  },
];

export interface Exchange {
  /** The bytes, in writes 5 ms apart. */
  readonly writes: readonly (string | Buffer)[];
  /** Half-close after the last write. */
  readonly fin?: boolean;
}

/** What came back until the server closed or went quiet for 1 s (a loaded machine starts commands slowly), with the Date values blanked. */
export async function exchange(port: number, ex: Exchange): Promise<{ text: string; closed: boolean }> {
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  const chunks: Buffer[] = [];
  let closed = false;
  let quiet: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    const arm = () => {
      clearTimeout(quiet);
      quiet = setTimeout(resolve, 1000);
    };
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      arm();
    });
    socket.on("end", () => {
      closed = true;
      clearTimeout(quiet);
      resolve();
    });
    socket.on("error", () => resolve());
    socket.on("connect", async () => {
      for (const w of ex.writes) {
        socket.write(w);
        await new Promise((r) => setTimeout(r, 5));
      }
      if (ex.fin) socket.end();
      arm();
    });
  });
  await done;
  socket.destroy();
  const text = Buffer.concat(chunks)
    .toString("latin1")
    .replace(/^Date: .*$/gm, "Date: -");
  return { text, closed };
}

/** The answer to one exchange: ours alone, or ours after checking it equals the peer's. */
export type Answer = (ex: Exchange) => Promise<{ text: string; closed: boolean }>;

/** Declares every wire test; each asserts on what `answer` returned. */
export function wireTests(answer: Answer): void {
  const rejected = (token: string) => {
    const body = JSON.stringify({ token });
    return `POST /hooks/rejected HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };

  test("wire: a kept-alive HTTP/1.1 answer is Go's bytes (Date, Content-Length, sniffed Content-Type; no Connection)", async () => {
    const { text, closed } = await answer({ writes: [rejected("no")] });
    assert.match(text, /^HTTP\/1\.1 200 OK\r\nDate: -\r\nContent-Length: 30\r\nContent-Type: text\/plain/);
    assert.equal(closed, false);
  });

  test("wire: Connection: close is answered with Connection: close and the connection ends", async () => {
    const request = rejected("no").replace("Host: x\r\n", "Host: x\r\nConnection: close\r\n");
    const { text, closed } = await answer({ writes: [request] });
    assert.match(text, /\r\nConnection: close\r\n/);
    assert.equal(closed, true);
  });

  test("wire: HTTP/1.0 gets an HTTP/1.0 status line and is closed unless it asks for keep-alive", async () => {
    const plain = await answer({ writes: ["GET / HTTP/1.0\r\n\r\n"] });
    assert.match(plain.text, /^HTTP\/1\.0 200 OK\r\n/);
    assert.equal(plain.closed, true);
    const kept = await answer({ writes: ["GET /hooks/large HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"] });
    assert.match(kept.text, /^HTTP\/1\.0 413 Request Entity Too Large\r\n[\s\S]*Connection: keep-alive\r\n/);
    assert.equal(kept.closed, false);
  });

  test("wire: 204 has neither Content-Length nor body; HEAD has the length but no body", async () => {
    const noContent = await answer({ writes: ["GET /hooks/nc HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.equal(noContent.text, "HTTP/1.1 204 No Content\r\nDate: -\r\n\r\n");
    const head = await answer({ writes: ["HEAD /hooks/large HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.match(head.text, /Content-Length: 2\r\n[\s\S]*\r\n\r\n$/);
  });

  test("wire: Go's reason phrases, and a code Go does not know (509) answered as 200", async () => {
    const large = await answer({ writes: ["GET /hooks/large HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.match(large.text, /^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
    const unknown = await answer({ writes: ["GET /hooks/c509 HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.match(unknown.text, /^HTTP\/1\.1 200 OK\r\n/);
  });

  test("wire: non-ASCII header values and bodies go out as UTF-8, values trimmed, headers sorted as Go", async () => {
    const { text } = await answer({ writes: ["GET /hooks/utf8 HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.ok(text.startsWith("HTTP/1.1 200 OK\r\nA-First: padded\tvalue\r\n"), text);
    assert.ok(text.includes(`X-Name: ${Buffer.from("café ☕").toString("latin1")}\r\n`));
  });

  test("wire: a request sent a byte at a time, and two pipelined in one write, are answered in order", async () => {
    const bytes = [...Buffer.from(rejected("no"))].map((b) => Buffer.from([b]));
    const split = await answer({ writes: bytes });
    assert.match(split.text, /Hook rules were not satisfied\.$/);
    const pipelined = await answer({
      writes: [`${rejected("no")}GET /hooks/large HTTP/1.1\r\nHost: x\r\n\r\n`],
    });
    assert.match(pipelined.text, /not satisfied\.HTTP\/1\.1 413 [\s\S]*\r\n\r\nhi$/);
  });

  test("wire: a complete request followed by the client's FIN is still answered, then the connection ends", async () => {
    const request = "POST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
    const { text, closed } = await answer({ writes: [request], fin: true });
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n5\n$/);
    assert.equal(closed, true);
    const two = await answer({ writes: [request + request], fin: true });
    assert.equal(two.text.match(/HTTP\/1\.1 200 OK/g)?.length, 2);
  });

  test("wire: a body cut short by the client's FIN is served with what arrived, as upstream", async () => {
    const request = "POST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab";
    const { text } = await answer({ writes: [request], fin: true });
    assert.match(text, /\r\n\r\n2\n$/);
  });

  test("wire: a request head cut short by the client's FIN gets Go's 400", async () => {
    const { text, closed } = await answer({ writes: ["POST /hooks/size HTTP/1.1\r\nHost: x"], fin: true });
    assert.equal(
      text,
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request",
    );
    assert.equal(closed, true);
  });

  test("wire: a 100 kB body in three writes reaches the command whole", async () => {
    const body = "x".repeat(100_000);
    const head = `POST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text } = await answer({ writes: [head, body.slice(0, 40_000), body.slice(40_000)] });
    assert.match(text, /\r\n\r\n100000\n$/);
  });

  test("wire: chunked bodies, with a Content-Length beside them (Go ignores it), are read as Go reads them", async () => {
    const chunked =
      "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\n\r\n";
    const both = chunked.replace("Transfer-Encoding", "Content-Length: 99\r\nTransfer-Encoding");
    const { text, closed } = await answer({ writes: [rejected("no"), chunked, both] });
    assert.equal(text.match(/\r\n\r\n3\n/g)?.length, 2, text);
    assert.equal(closed, false);
  });

  test("wire: a transfer coding other than a lone chunked gets Go's 501", async () => {
    for (const coding of ["gzip, chunked", "identity"]) {
      const request = `POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${coding}\r\n\r\n0\r\n\r\n`;
      const { text, closed } = await answer({ writes: [request] });
      assert.match(text, /^HTTP\/1\.1 501 Not Implemented\r\n/);
      assert.equal(closed, true);
    }
  });

  test("wire: Expect: 100-continue gets 100 Continue only when a hook reads the body, as Go's server", async () => {
    const expect = (path: string, method = "POST") =>
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n`;
    // A hook that reads the body: 100 Continue, then the answer, on a connection that stays open.
    const found = await answer({ writes: [rejected("no"), expect("/hooks/size"), "abc", rejected("no")] });
    assert.match(found.text, /HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n3\n/);
    assert.equal(found.text.match(/not satisfied/g)?.length, 2);
    // No hook, `/`: answered at once without reading the body, `Connection: close`; the connection ends once the
    // client has sent the body anyway (Go reads up to 256 KiB of it) and stays open until then.
    for (const path of ["/hooks/nope", "/"]) {
      const waiting = await answer({ writes: [expect(path)] });
      assert.doesNotMatch(waiting.text, /100 Continue/);
      assert.match(waiting.text, /\r\nConnection: close\r\n/);
      assert.equal(waiting.closed, false);
      const sent = await answer({ writes: [expect(path), "abc"] });
      assert.equal(sent.closed, true);
    }
    // Sent without waiting for the 100: still answered once, in order.
    const eager = await answer({ writes: [`${expect("/hooks/size")}abc`] });
    assert.match(eager.text, /\r\n\r\n3\n$/);
  });

  test("wire: a method node:http does not know (`post`) is served on a connection that stays open, as Go", async () => {
    const { text, closed } = await answer({
      writes: ["post / HTTP/1.1\r\nHost: x\r\n\r\nGet /hooks/large HTTP/1.1\r\nHost: x\r\n\r\n"],
    });
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nOKHTTP\/1\.1 413 Request Entity Too Large\r\n/);
    assert.equal(closed, false);
  });

  test("wire: an answer past Go's 2 KiB buffer goes chunked (HTTP/1.1) or ends with the connection (HTTP/1.0)", async () => {
    const get = (n: number, version = "1.1", method = "GET") =>
      `${method} /hooks/output?n=${n} HTTP/${version}\r\nHost: x\r\n\r\n`;
    const typed = "Content-Type: text/plain; charset=utf-8\r\n";
    const fits = await answer({ writes: [get(2048)] });
    assert.equal(
      fits.text,
      `HTTP/1.1 200 OK\r\nDate: -\r\nContent-Length: 2048\r\n${typed}\r\n${"x".padStart(2048)}`,
    );
    const past = await answer({ writes: [get(2049)] });
    assert.equal(
      past.text,
      `HTTP/1.1 200 OK\r\nDate: -\r\n${typed}Transfer-Encoding: chunked\r\n\r\n801\r\n${"x".padStart(2049)}\r\n0\r\n\r\n`,
    );
    assert.equal(past.closed, false);
    const old = await answer({
      writes: [get(3000, "1.0").replace("\r\n\r\n", "\r\nConnection: keep-alive\r\n\r\n")],
    });
    assert.equal(old.text, `HTTP/1.0 200 OK\r\nDate: -\r\n${typed}\r\n${"x".padStart(3000)}`);
    assert.equal(old.closed, true);
    const head = await answer({ writes: [get(3000, "1.1", "HEAD")] });
    assert.equal(head.text, `HTTP/1.1 200 OK\r\nDate: -\r\n${typed}\r\n`);
  });

  test("wire: a 1xx success code is sent as Go 1.19 sends it: on its own with the hook's headers, then a 200", async () => {
    const { text, closed } = await answer({ writes: ["GET /hooks/early HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.equal(
      text,
      "HTTP/1.1 103 Early Hints\r\nX-A: 1\r\n\r\n" +
        "HTTP/1.1 200 OK\r\nX-A: 1\r\nDate: -\r\nContent-Length: 1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nm",
    );
    assert.equal(closed, false);
  });

  test("wire: an empty HEAD answer has no Content-Length (a 405 here)", async () => {
    const { text } = await answer({ writes: ["HEAD /hooks/post-only HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.equal(text, "HTTP/1.1 405 Method Not Allowed\r\nDate: -\r\n\r\n");
  });

  test("wire: the command's 500 gets a sniffed type (upstream sets its own after WriteHeader); the router's 404 an explicit one", async () => {
    const failed = await answer({
      writes: ["POST /hooks/fails HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"],
    });
    assert.equal(
      failed.text,
      "HTTP/1.1 500 Internal Server Error\r\nDate: -\r\nContent-Length: 91\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
        "Error occurred while executing the hook's command. Please check your logs for more details.",
    );
    const unrouted = await answer({ writes: ["GET /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.equal(
      unrouted.text,
      "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n" +
        "Date: -\r\nContent-Length: 19\r\n\r\n404 page not found\n",
    );
  });

  test("wire: a UTF-8 header value reaches the command as its bytes came (Go passes them on as they are)", async () => {
    const request = Buffer.from("GET /hooks/header HTTP/1.1\r\nHost: x\r\nX-Name: José ✓\r\n\r\n");
    const { text } = await answer({ writes: [request] });
    const body = Buffer.from(text.slice(text.indexOf("\r\n\r\n") + 4), "latin1").toString("utf8");
    assert.equal(body, 'José ✓|{"X-Name":"José ✓"}');
  });

  test("wire: response-headers names are canonicalised, the last of a name wins, and go out sorted as Go's", async () => {
    const { text } = await answer({ writes: ["GET /hooks/named HTTP/1.1\r\nHost: x\r\n\r\n"] });
    assert.equal(
      text,
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-A: 2\r\nDate: -\r\nContent-Length: 2\r\n\r\n{}",
    );
  });
}
