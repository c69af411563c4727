import assert from "node:assert/strict";
import { test } from "node:test";
import { goErrorResponse, goParserRefusal, goParserRefusalStatus } from "./http-refusal.js";

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
