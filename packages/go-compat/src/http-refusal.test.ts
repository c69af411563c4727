import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { test } from "node:test";
import {
  answerClientError,
  GO_MAX_HEADER_BYTES,
  GO_PARSER_LIMITS,
  goErrorResponse,
  goParserRefusal,
  goParserRefusalStatus,
  MISSING_HOST_REFUSAL,
  PLAIN_HTTP_ON_TLS_ANSWER,
  refuseMissingHost,
  tlsRecordHeaderLooksLikeHttp,
} from "./http-refusal.js";

test("goErrorResponse() writes the status text as the body and closes, as Go's server does", () => {
  assert.equal(
    goErrorResponse("400 Bad Request"),
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request",
  );
});

test("goParserRefusalStatus() maps node's parser errors to Go's answers", () => {
  const cases: [{ code?: string; reason?: string }, string, string?][] = [
    [{ code: "HPE_HEADER_OVERFLOW" }, "431 Request Header Fields Too Large"],
    [{ code: "HPE_INVALID_VERSION" }, "505 HTTP Version Not Supported: unsupported protocol version"],
    [
      { code: "HPE_INVALID_TRANSFER_ENCODING", reason: "Invalid `Transfer-Encoding` header value" },
      "501 Not Implemented",
      "Unsupported transfer encoding",
    ],
    [
      {
        code: "HPE_INVALID_TRANSFER_ENCODING",
        reason: "Transfer-Encoding can't be present with Content-Length",
      },
      "400 Bad Request",
    ],
    [{ code: "ERR_HTTP_REQUEST_TIMEOUT" }, "408 Request Timeout"],
    [{ code: "HPE_INVALID_METHOD" }, "400 Bad Request"],
    [{}, "400 Bad Request"],
  ];
  for (const [error, status, body] of cases) {
    assert.deepEqual(
      goParserRefusalStatus(error),
      body === undefined ? { status } : { status, body },
      error.code,
    );
  }
});

test("goParserRefusal() answers a body error with the application's status", () => {
  const error = { code: "HPE_CHUNK_EXTENSIONS_OVERFLOW" };
  assert.match(goParserRefusal(error), /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(
    goParserRefusal(error, { bodyError: "413 Payload Too Large" }),
    /^HTTP\/1\.1 413 Payload Too Large\r\n.*413 Payload Too Large$/s,
  );
});

/** A server whose clientError and request handling are the shared ones, and a raw exchange with it. */
async function rawExchange(request: string): Promise<{ answer: string; closed: boolean }> {
  const server = createServer(GO_PARSER_LIMITS, (req, res) => {
    if (refuseMissingHost(req)) return;
    res.end("served");
  });
  server.on("clientError", (error: Error & { code?: string }, socket) => answerClientError(error, socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(request));
      let answer = "";
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ answer, closed: false });
      }, 3000);
      socket.on("data", (c: Buffer) => (answer += c.toString("latin1")));
      socket.on("end", () => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ answer, closed: true });
      });
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

test("refuseMissingHost() answers an HTTP/1.1 request without Host with Go's text and closes", async () => {
  assert.deepEqual(await rawExchange("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"), {
    answer: MISSING_HOST_REFUSAL,
    closed: true,
  });
  // HTTP/1.0 needs no Host.
  const { answer } = await rawExchange("GET / HTTP/1.0\r\n\r\n");
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n[\s\S]*served$/);
});

test("GO_PARSER_LIMITS read 1 MiB of headers (node stops at 16 KiB); past Go's limit answerClientError gives 431 and closes", async () => {
  const pad = (n: number) => `GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ${"p".repeat(n)}\r\n\r\n`;
  assert.match((await rawExchange(pad(1 << 19))).answer, /^HTTP\/1\.1 200 OK/);
  assert.deepEqual(await rawExchange(pad(GO_MAX_HEADER_BYTES)), {
    answer: goErrorResponse("431 Request Header Fields Too Large"),
    closed: true,
  });
});

test("answerClientError() refuses a request it cannot read with Go's answer and reads nothing after it", async () => {
  assert.deepEqual(
    await rawExchange("GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"),
    {
      answer: goErrorResponse("400 Bad Request"),
      closed: true,
    },
  );
});

test("tlsRecordHeaderLooksLikeHttp() takes the five request starts net/http answers with its plain-HTTP text", () => {
  for (const start of [
    "GET / HTTP/1.1\r\n",
    "HEAD /x",
    "POST /hooks/a",
    "PUT /metrics",
    "OPTIONS * HTTP/1.1",
  ])
    assert.equal(tlsRecordHeaderLooksLikeHttp(Buffer.from(start, "latin1")), true, start);
  // A TLS handshake record, other methods, a short read and a lower-case method are not answered (Go closes).
  for (const start of ["\x16\x03\x01\x02\x00", "DELETE /x", "PATCH /x", "GET ", "get / HTTP/1.1", "GET\t/"])
    assert.equal(tlsRecordHeaderLooksLikeHttp(Buffer.from(start, "latin1")), false, JSON.stringify(start));
  assert.equal(
    PLAIN_HTTP_ON_TLS_ANSWER,
    "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
  );
});
