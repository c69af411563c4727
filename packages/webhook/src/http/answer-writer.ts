import type { Socket } from "node:net";
import type { StreamedBody } from "../response/streamed-body.js";
import { ONE_WRITE_BODY_BYTES } from "./body-too-large.js";
import { type FramingContext, goResponseHead } from "./go-framing.js";
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
export function writeAnswer(socket: Socket, answer: Answer, request: FramingContext): void {
  const framed = goResponseHead(answer.status, answer.headers, request);
  const body = framed.bodyAllowed ? answer.body : "";
  const send = request.close
    ? (data: string | Buffer) => socket.write(data)
    : (data: string | Buffer) => writeAtEndOfTurn(socket, data);
  if (typeof body === "string") send(framed.head + body);
  else if (body.length <= ONE_WRITE_BODY_BYTES) send(Buffer.concat([Buffer.from(framed.head), body]));
  else {
    socket.cork();
    socket.write(framed.head);
    socket.write(body);
    socket.uncork();
  }
}
