import {
  chunkedEnd,
  chunkFrame,
  type StreamedBody,
  type Writable,
  writableSink,
} from "../response/streamed-body.js";
import { type FramingContext, goResponseHead } from "./go-framing.js";

/**
 * Writes a streamed answer on a connection, framed as Go frames answers (`go-framing.ts`): the head, then the body as
 * `stream` produces it, chunked with its trailers on HTTP/1.1, raw on HTTP/1.0 (which then ends with the
 * connection). Resolves true when the connection can serve another request, false when it must close: the client
 * went away, the producer failed (the socket is destroyed), or HTTP/1.0 / `close` asked for it.
 */
export async function sendStreamed(
  socket: Writable & {
    destroy(): void;
    readonly readableEnded: boolean;
    once(event: "end", listener: () => void): unknown;
    removeListener(event: "end", listener: () => void): unknown;
  },
  answer: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | readonly string[]>>;
    readonly stream: StreamedBody;
  },
  request: FramingContext,
): Promise<boolean> {
  const { stream } = answer;
  const chunked = request.httpVersion === "1.1";
  const close = request.close || !chunked;
  const framed = goResponseHead(
    answer.status,
    chunked ? { ...answer.headers, "Transfer-Encoding": "chunked" } : answer.headers,
    { ...request, close },
  );
  socket.write(framed.head);
  if (!framed.bodyAllowed) {
    // HEAD (or a status without a body): the producer runs to its end as for GET, its output dropped, as Go's
    // handler would write into a body that goes nowhere.
    const never = new AbortController().signal;
    await stream.pump({ gone: never, write: () => Promise.resolve() }).catch(() => undefined);
    return !close && !socket.destroyed;
  }
  const gone = new AbortController();
  const onClose = () => gone.abort();
  // A client that closes its side has gone, as Go's server cancels a request's context when its connection reads
  // EOF; the socket is half-open (node:http servers allow it), so `close` alone would come only at the next write.
  socket.once("close", onClose);
  socket.once("end", onClose);
  if (socket.readableEnded) gone.abort();
  const sink = writableSink(socket, { frame: chunked ? chunkFrame : (c) => [c], gone: gone.signal });
  try {
    const trailers = await stream.pump(sink);
    if (socket.destroyed || gone.signal.aborted) return false;
    if (chunked) socket.write(chunkedEnd(trailers));
    return !close;
  } catch {
    socket.destroy();
    return false;
  } finally {
    socket.removeListener("close", onClose);
    socket.removeListener("end", onClose);
  }
}
