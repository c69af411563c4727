import type { Socket } from "node:net";
import type { StreamedBody } from "../response/streamed-body.js";
import { ONE_WRITE_BODY_BYTES } from "./body-too-large.js";
import { type FramingContext, goInformationalHead, goResponseHead } from "./go-framing.js";
import { writeAtEndOfTurn } from "./write-batch.js";

/** An answer as the handler gave it. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: string | Buffer;
  readonly stream?: StreamedBody;
}

/**
 * Writes a whole (not streamed) answer framed as Go frames it. Header text goes out as UTF-8, as Go writes its
 * strings (node would write latin1). A small answer on a kept connection goes out with the others of this turn; one
 * that closes goes out at once, before the close.
 */
export function writeAnswer(socket: Socket, answer: Answer, request: FramingContext): { close: boolean } {
  const bodyBytes = typeof answer.body === "string" ? Buffer.byteLength(answer.body) : answer.body.length;
  // A 1xx goes out on its own first, and the answer follows as a 200 (Go 1.19's WriteHeader).
  const informational = answer.status >= 100 && answer.status <= 199;
  const status = informational ? 200 : answer.status;
  // A literal of one shape (a spread's copy is not): goResponseHead stays monomorphic on the hot path.
  const context = {
    httpVersion: request.httpVersion,
    method: request.method,
    close: request.close,
    bodyBytes,
  };
  const framed = goResponseHead(status, answer.headers, context);
  const send = framed.close
    ? (data: string | Buffer) => socket.write(data)
    : (data: string | Buffer) => writeAtEndOfTurn(socket, data);
  if (informational) send(goInformationalHead(answer.status, answer.headers, request.httpVersion));
  if (!framed.bodyAllowed) send(framed.head);
  // Past Go's 2 KiB buffer the handler's one write goes out as one chunk, then the last (chunkWriter).
  else if (framed.chunked) {
    socket.cork();
    send(`${framed.head}${bodyBytes.toString(16)}\r\n`);
    send(answer.body);
    send("\r\n0\r\n\r\n");
    socket.uncork();
  } else writeBody(send, socket, framed.head, answer.body);
  return { close: framed.close };
}

function writeBody(
  send: (data: string | Buffer) => void,
  socket: Socket,
  head: string,
  body: string | Buffer,
): void {
  if (typeof body === "string") send(head + body);
  else if (body.length <= ONE_WRITE_BODY_BYTES) send(Buffer.concat([Buffer.from(head), body]));
  else {
    socket.cork();
    socket.write(head);
    socket.write(body);
    socket.uncork();
  }
}
