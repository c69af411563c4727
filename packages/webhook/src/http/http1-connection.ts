import type { Server } from "node:http";
import type { Socket } from "node:net";
import { endAndClose, GO_MAX_HEADER_BYTES, goErrorResponse } from "@local/go-compat/http-refusal";
import type { StreamedBody } from "../response/streamed-body.js";
import { BODY_TOO_LARGE, ONE_WRITE_BODY_BYTES } from "./body-too-large.js";
import { goResponseHead } from "./go-framing.js";
import { sendStreamed } from "./streamed-answer.js";
import {
  BodyReader,
  DISCARD_LIMIT,
  HeadScanner,
  parseHead,
  type Refusal,
  type RequestHead,
} from "./wire-request.js";
import { sendNow, writeAtEndOfTurn } from "./write-batch.js";

/** One request read off the wire. */
export interface Http1Request {
  readonly method: string;
  /** The target as sent (Go's `RequestURI`). */
  readonly url: string;
  /** The path routed on, and the query without `?`. */
  readonly path: string;
  readonly query: string;
  readonly httpVersion: "1.0" | "1.1";
  /** Name, value, name, value… as sent (node's `rawHeaders` shape). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /**
   * Set when the body had not all arrived when the head did (`Expect: 100-continue` included): `body` is empty and
   * this reads it, sending `100 Continue` first where asked. As Go's handlers, one that never reads it lets the
   * connection drop the rest (see {@link Http1Connection}).
   */
  readonly readBody?: () => Promise<Buffer>;
}

/**
 * Gives the answer to the request being served; called at most once. Headers go out in the record's order, with
 * `Date` just before `Content-Length` (as Go's server writes it).
 */
export type Http1Respond = (
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
  body: string | Buffer,
  /** Beyond upstream: a body written while it is produced (chunked on HTTP/1.1, until close on HTTP/1.0). */
  stream?: StreamedBody,
) => void;

export interface Http1Options {
  /** Serves one request; the next one on the connection is read once this settles. */
  readonly serve: (req: Http1Request, respond: Http1Respond, socket: Socket) => Promise<void>;
  /** Request line and headers past this size get Go's 431 (default: Go's 1 MiB + 4 KiB). */
  readonly maxHeaderBytes?: number;
  /** A body past this size (when > 0) gets 413 and is not served (beyond upstream: `-max-body-bytes`). */
  readonly maxBodyBytes: number;
  /** Told of each request refused for `maxBodyBytes` (the `-metrics` count), with the path it asked for. */
  readonly onTooLarge?: (path: string) => void;
  /** The server's event that brings a readable socket: `connection`, or `secureConnection` for https. */
  readonly event?: "connection" | "secureConnection";
}

/**
 * Serves every connection the server accepts with an {@link Http1Connection} instead of node:http's parser, and
 * makes the server's `closeIdleConnections`/`closeAllConnections` reach those connections too.
 */
export function serveHttp1(server: Server, options: Http1Options): void {
  const event = options.event ?? "connection";
  server.removeAllListeners(event);
  const idle = new Set<Socket>();
  const open = new Set<Socket>();
  // node:http closes its own idle connections on close(); these are not its own.
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    // An answer still waiting for the end of this turn goes out before the connection ends.
    for (const socket of idle) {
      sendNow(socket);
      socket.destroy();
    }
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of open) socket.destroy();
  };
  server.on(event, (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      idle.delete(socket);
    });
    new Http1Connection(socket, {
      ...options,
      listening: () => server.listening,
      idle: (isIdle) => (isIdle ? idle.add(socket) : idle.delete(socket)),
    });
  });
}

/** What a connection needs beyond {@link Http1Options}. */
export interface ConnectionOptions extends Http1Options {
  /** False once the server stopped listening: answers then close their connection. */
  readonly listening: () => boolean;
  /** Told when the connection waits for a request (true) or serves one (false). */
  readonly idle?: (idle: boolean) => void;
}

/** The request being served on a connection, and how far its body is. */
interface Exchange {
  readonly head: RequestHead;
  readonly body: BodyReader;
  /**
   * collect: reading the body before serving (it had arrived, or `-max-body-bytes` needs it whole);
   * serving: the handler runs (the body is read only once it asked); discard: the handler answered without
   * reading the body, which is read (at most 256 KiB) and dropped before the answer; closing: the answer is out
   * and the body is read and dropped until the connection closes.
   */
  phase: "collect" | "serving" | "discard" | "closing";
  wanted: boolean;
  continueSent: boolean;
  bodyPromise?: Promise<Buffer>;
  resolveBody?: ((body: Buffer) => void) | undefined;
  answer?: Answer;
  discardFrom: number;
}

/** An answer as the handler gave it. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: string | Buffer;
  readonly stream?: StreamedBody;
}

const EMPTY = Buffer.alloc(0);
const BAD_REQUEST_BYTES = goErrorResponse("400 Bad Request");

/**
 * One HTTP/1.x connection served as Go's server serves it: requests read in turn by the one reader
 * (`wire-request.ts`), each answered before the next is read, framed as Go frames answers (`go-framing.ts`), and
 * nothing read after an answer that closes the connection (`Connection: close`, HTTP/1.0 without keep-alive, a
 * refused request, 417, a broken chunked body), so bytes that follow are never taken for another request.
 * Reading is incremental and yields between socket reads, so a slow or endless client does not hold up others.
 *
 * A body that has arrived with its head is read before serving; otherwise the handler gets `readBody`, and, as
 * Go's `finishRequest`, a body the handler never read is dropped after it answered: at most 256 KiB of it is read
 * before the answer (the connection stays open if it ended by then), a declared larger one closes the connection.
 */
export class Http1Connection {
  readonly #socket: Socket;
  readonly #options: ConnectionOptions;
  readonly #maxHead: number;
  #queue: Buffer[] = [];
  #queued = 0;
  #ended = false;
  #closed = false;
  #scanner: HeadScanner | undefined;
  #headChunks: Buffer[] = [];
  /** After a POST, Go drops up to 4 CR/LF bytes before the next request line (`numLeadingCRorLF`). */
  #leadingBreaks = 0;
  #current: Exchange | undefined;
  /** An answer is waiting in the write buffer for the client to read it: no request is read meanwhile. */
  #awaitingDrain = false;

  constructor(socket: Socket, options: ConnectionOptions, initial?: Buffer) {
    this.#socket = socket;
    this.#options = options;
    this.#maxHead = options.maxHeaderBytes ?? GO_MAX_HEADER_BYTES;
    // node:http's default; the answers are small and the client waits for them.
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      if (this.#closed) return;
      this.#queue.push(chunk);
      this.#queued += chunk.length;
      this.#pump();
    });
    socket.on("end", () => {
      this.#ended = true;
      this.#pump();
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.#closed = true;
    });
    options.idle?.(true);
    if (initial !== undefined && initial.length > 0) {
      this.#queue.push(initial);
      this.#queued += initial.length;
      this.#pump();
    }
  }

  /** Reads what the connection is waiting for: the body in progress, or the next request's head. */
  #pump(): void {
    if (this.#closed || this.#awaitingDrain) return;
    if (this.#current !== undefined) {
      this.#feedBody(this.#current);
      return;
    }
    if (!this.#skipLeadingBreaks()) return;
    if (this.#queued === 0) {
      // Go answers a request head cut short by the client's FIN with 400; a FIN between requests just ends.
      if (this.#ended) {
        if (this.#scanner !== undefined && this.#scanner.size > 0)
          this.#refuse({ refusal: BAD_REQUEST_BYTES });
        else this.#close();
      }
      return;
    }
    this.#scanner ??= new HeadScanner(this.#maxHead);
    let end = -1;
    while (this.#queue.length > 0) {
      const chunk = this.#take();
      const at = this.#scanner.push(chunk);
      if (typeof at !== "number") {
        this.#refuse(at);
        return;
      }
      if (at < 0) {
        this.#headChunks.push(chunk);
        continue;
      }
      this.#headChunks.push(chunk.subarray(0, at));
      this.#giveBack(chunk.subarray(at));
      end = at;
      break;
    }
    if (end < 0) {
      // Go answers a request head cut short by the client's FIN with 400.
      if (this.#ended) this.#refuse({ refusal: BAD_REQUEST_BYTES });
      return;
    }
    const size = this.#scanner.size;
    const raw =
      this.#headChunks.length === 1 ? (this.#headChunks[0] as Buffer) : Buffer.concat(this.#headChunks, size);
    this.#scanner = undefined;
    this.#headChunks = [];
    const head = parseHead(raw.toString("latin1", 0, size - 4));
    if ("refusal" in head) {
      this.#refuse(head);
      return;
    }
    if (head.expectationFailed) {
      // server.go sendExpectationFailed: 417 with `Connection: close`, and nothing more is read.
      this.#writeClosing(head, {
        status: 417,
        headers: { Connection: "close", "Content-Length": "0" },
        body: "",
      });
      this.#close();
      return;
    }
    this.#leadingBreaks = head.method === "POST" ? 4 : 0;
    this.#begin(head);
  }

  #begin(head: RequestHead): void {
    const body = new BodyReader(head.framing);
    const ex: Exchange = { head, body, phase: "collect", wanted: false, continueSent: false, discardFrom: 0 };
    this.#current = ex;
    this.#options.idle?.(false);
    const max = this.#options.maxBodyBytes;
    if (max > 0 && head.framing.kind === "length" && head.framing.length > max) {
      this.#tooLarge(head);
      return;
    }
    this.#keepBody(ex);
    if (max > 0 && body.size > max) this.#tooLarge(head);
    // As Go's expectContinueReader: `100 Continue` goes out on the handler's first read, even of a body sent early.
    else if (head.expectContinue) this.#serve(ex);
    else if (body.done || body.failed) this.#serve(ex, body.body());
    // `-max-body-bytes` needs the body whole before serving; without it, the handler reads it if it wants it.
    else if (max > 0) this.#feedBody(ex);
    else this.#serve(ex);
  }

  /** Moves queued bytes into the body, kept for the handler. */
  #keepBody(ex: Exchange): void {
    this.#consume(ex, { keep: true });
  }

  /** Moves queued bytes into the body, only counted: the answer is given and the body is dropped. */
  #dropBody(ex: Exchange): void {
    this.#consume(ex, { keep: false });
  }

  #consume(ex: Exchange, options: { keep: boolean }): void {
    const { keep } = options;
    const { body } = ex;
    while (this.#queue.length > 0 && !body.done && !body.failed) {
      const chunk = this.#take();
      const used = keep ? body.push(chunk) : body.skip(chunk);
      if (used < chunk.length) this.#giveBack(chunk.subarray(used));
    }
    if (this.#ended && !body.done) body.end();
  }

  #feedBody(ex: Exchange): void {
    const { body } = ex;
    const max = this.#options.maxBodyBytes;
    switch (ex.phase) {
      case "collect":
        this.#keepBody(ex);
        if (max > 0 && body.size > max) this.#tooLarge(ex.head);
        else if (body.done || body.failed) this.#serve(ex, body.body());
        return;
      case "serving":
        if (!ex.wanted) {
          // Pipelined requests wait for the answer in progress; past a bound, stop reading (as node:http does).
          if (this.#queued > this.#maxHead) this.#socket.pause();
          return;
        }
        this.#keepBody(ex);
        // A body past `-max-body-bytes` asked for after `Expect: 100-continue`: 413, and the handler never gets it.
        if (max > 0 && body.size > max) this.#tooLarge(ex.head);
        else if ((body.done || body.failed) && ex.resolveBody !== undefined) {
          const resolve = ex.resolveBody;
          ex.resolveBody = undefined;
          resolve(body.body());
        }
        return;
      case "discard":
        this.#dropBody(ex);
        if (body.done) this.#answer(ex);
        else if (body.failed || body.size - ex.discardFrom > DISCARD_LIMIT) this.#answerAndClose(ex);
        return;
      case "closing":
        this.#dropBody(ex);
        if (body.done || body.failed || body.size - ex.discardFrom > DISCARD_LIMIT) this.#close();
        return;
    }
  }

  #serve(ex: Exchange, body?: Buffer): void {
    ex.phase = "serving";
    const { head } = ex;
    const socket = this.#socket;
    const readBody = () => {
      ex.bodyPromise ??= new Promise<Buffer>((resolve) => {
        if (head.expectContinue && !ex.continueSent) {
          ex.continueSent = true;
          socket.write("HTTP/1.1 100 Continue\r\n\r\n");
        }
        ex.wanted = true;
        ex.resolveBody = resolve;
        // Reading may have stopped while the handler had not asked for the body yet (the pipelining bound).
        socket.resume();
        this.#feedBody(ex);
      });
      return ex.bodyPromise;
    };
    const respond: Http1Respond = (status, headers, payload, stream) => {
      if (ex.answer !== undefined) throw new Error("the request was already answered");
      if (!Number.isInteger(status) || status < 100 || status > 999) {
        throw new RangeError(`invalid status code ${status}`);
      }
      ex.answer = { status, headers, body: payload, ...(stream === undefined ? {} : { stream }) };
    };
    const request: Http1Request = {
      method: head.method,
      url: head.target,
      path: head.path,
      query: head.query,
      httpVersion: head.httpVersion,
      rawHeaders: head.rawHeaders,
      body: body ?? EMPTY,
      ...(body === undefined ? { readBody } : {}),
    };
    this.#options.serve(request, respond, socket).then(
      () => this.#finish(ex),
      () => {
        ex.answer?.stream?.cancel();
        socket.destroy();
      },
    );
  }

  /** The handler is done: answer, and read on, drop the unread body, or close, as Go's `finishRequest`. */
  #finish(ex: Exchange): void {
    if (this.#closed) {
      ex.answer?.stream?.cancel();
      return;
    }
    if (ex.answer === undefined) {
      this.#socket.destroy();
      return;
    }
    const { body, head } = ex;
    // A Content-Length body cut short by the client's FIN ends as an EOF to Go (no `Connection: close`; the
    // connection ends at the next read); a broken or cut chunked body is an error, and the answer says close.
    if (body.failed && !body.chunked) this.#answer(ex);
    else if (body.failed) this.#answerAndClose(ex);
    else if (head.expectContinue && !(ex.wanted && body.done)) {
      // Go's chunkWriter.writeHeader: an `Expect: 100-continue` body the handler did not read to its end closes
      // the connection, even when the client sent it anyway (issue 34 item 3): those bytes, or what follows them,
      // are never another request. What arrives is read, up to 256 KiB, so the close does not reset the answer.
      this.#writeClosing(head, ex.answer);
      if (head.framing.kind === "length" && body.remaining > DISCARD_LIMIT) this.#close();
      else {
        ex.phase = "closing";
        ex.discardFrom = body.size;
        this.#socket.resume();
        this.#feedBody(ex);
      }
    } else if (body.done) this.#answer(ex);
    else if (head.framing.kind === "length" && body.remaining >= DISCARD_LIMIT) this.#answerAndClose(ex);
    else {
      ex.phase = "discard";
      ex.discardFrom = body.size;
      body.drop();
      this.#socket.resume();
      this.#feedBody(ex);
    }
  }

  /** Writes the answer; then the next request, or the end of the connection. */
  #answer(ex: Exchange): void {
    this.#sendAnswer(ex, { mustClose: false });
  }

  /** Writes the answer with `Connection: close` and ends the connection (the body cannot be read past). */
  #answerAndClose(ex: Exchange): void {
    this.#sendAnswer(ex, { mustClose: true });
  }

  #sendAnswer(ex: Exchange, options: { mustClose: boolean }): void {
    const answer = ex.answer;
    if (answer === undefined) return;
    const close =
      options.mustClose ||
      ex.head.close ||
      !this.#options.listening() ||
      String(answer.headers.Connection ?? "").toLowerCase() === "close";
    if (answer.stream !== undefined) {
      // Beyond upstream: the next request is read once the streamed body has ended.
      const { httpVersion, method } = ex.head;
      const streamed = { status: answer.status, headers: answer.headers, stream: answer.stream };
      void sendStreamed(this.#socket, streamed, { httpVersion, method, close }).then((keep) =>
        keep && !this.#closed ? this.#next() : this.#close(),
      );
      return;
    }
    this.#write(ex.head, answer, { close });
    if (close) {
      this.#close();
      return;
    }
    this.#next();
  }

  /** The answer is written: read the next request, once the client has taken the answer. */
  #next(): void {
    this.#current = undefined;
    const socket = this.#socket;
    if (socket.writableNeedDrain) {
      // The client is not reading its answers: read nothing more until it does, as Go's server, which blocks in
      // the answer's write and handles one request at a time per connection (issue 34 item 3). Without this,
      // pipelined requests would be read and answered into an ever-growing write buffer.
      this.#awaitingDrain = true;
      socket.pause();
      socket.once("drain", () => {
        this.#awaitingDrain = false;
        this.#options.idle?.(true);
        socket.resume();
        this.#pump();
      });
      return;
    }
    this.#options.idle?.(true);
    socket.resume();
    this.#pump();
  }

  /** Writes an answer framed for a connection that ends after it (`Connection: close`). */
  #writeClosing(head: RequestHead, answer: Answer): void {
    this.#write(head, answer, { close: true });
  }

  #write(head: RequestHead, answer: Answer, options: { close: boolean }): void {
    const { close } = options;
    const framed = goResponseHead(answer.status, answer.headers, {
      httpVersion: head.httpVersion,
      method: head.method,
      close,
    });
    const body = framed.bodyAllowed ? answer.body : "";
    const socket = this.#socket;
    // Header text goes out as UTF-8, as Go writes its strings (node would write latin1). A small answer on a kept
    // connection goes out with the others of this turn; one that closes goes out at once, before the close.
    const send = close
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

  /** `-max-body-bytes` (beyond upstream): 413, nothing served, the connection closed. */
  #tooLarge(head: RequestHead): void {
    this.#options.onTooLarge?.(head.path);
    this.#writeClosing(head, BODY_TOO_LARGE);
    this.#close();
  }

  #refuse(refusal: Refusal): void {
    this.#closed = true;
    this.#queue = [];
    this.#queued = 0;
    endAndClose(this.#socket, refusal.refusal);
  }

  /** Ends the connection (Go's closeWriteAndWait); nothing more is read as a request. */
  #close(): void {
    this.#closed = true;
    this.#queue = [];
    this.#queued = 0;
    endAndClose(this.#socket);
  }

  /** Drops the CR/LF bytes Go drops after a POST; false while the queue holds nothing else yet. */
  #skipLeadingBreaks(): boolean {
    while (this.#leadingBreaks > 0 && this.#queue.length > 0) {
      const chunk = this.#queue[0] as Buffer;
      const c = chunk[0];
      if (c !== 0x0d && c !== 0x0a) {
        this.#leadingBreaks = 0;
        break;
      }
      this.#leadingBreaks--;
      this.#take();
      this.#giveBack(chunk.subarray(1));
    }
    return this.#leadingBreaks === 0 || this.#queue.length > 0 || this.#ended;
  }

  #take(): Buffer {
    const chunk = this.#queue.shift() as Buffer;
    this.#queued -= chunk.length;
    return chunk;
  }

  #giveBack(rest: Buffer): void {
    if (rest.length === 0) return;
    this.#queue.unshift(rest);
    this.#queued += rest.length;
  }
}
