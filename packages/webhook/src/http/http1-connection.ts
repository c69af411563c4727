import type { Socket } from "node:net";
import { endAndClose, GO_MAX_HEADER_BYTES, goErrorResponse } from "@local/go-compat/http-refusal";
import { type Answer, writeAnswer } from "./answer-writer.js";
import { BodyReader } from "./body-reader.js";
import { BODY_TOO_LARGE } from "./body-too-large.js";
import { ByteQueue } from "./byte-queue.js";
import { HeadScanner } from "./head-scanner.js";
import type { Http1Request, Http1Respond } from "./http1-request.js";
import { sendStreamed } from "./streamed-answer.js";
import { parseHead, type Refusal, type RequestHead } from "./wire-request.js";

/** Go's `maxPostHandlerReadBytes`: an unread body up to this size is read and dropped after the handler. */
const DISCARD_LIMIT = 256 << 10;

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

const EMPTY = Buffer.alloc(0);
const CR_OR_LF = (byte: number): boolean => byte === 0x0d || byte === 0x0a;
const BAD_REQUEST_BYTES = goErrorResponse("400 Bad Request");

/**
 * One HTTP/1.x connection served as Go's server serves it: requests read in turn by the one reader (`head-scanner.ts`,
 * `wire-request.ts`, `body-reader.ts`), each answered before the next is read, framed as Go frames answers
 * (`answer-writer.ts`), and nothing read after an answer that closes the connection (`Connection: close`, HTTP/1.0
 * without keep-alive, a refused request, 417, a broken chunked body), so bytes that follow are never taken for another
 * request. Reading is incremental and yields between socket reads, so a slow or endless client does not hold up others.
 *
 * A body that has arrived with its head is read before serving; otherwise the handler gets `readBody`, and, as
 * Go's `finishRequest`, a body the handler never read is dropped after it answered: at most 256 KiB of it is read
 * before the answer (the connection stays open if it ended by then), a declared larger one closes the connection.
 */
export class Http1Connection {
  readonly #socket: Socket;
  readonly #options: ConnectionOptions;
  readonly #maxHead: number;
  /** Bytes read off the socket and not yet taken by a request. */
  readonly #queue = new ByteQueue();
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
    if (this.#queue.bytes === 0) {
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
    while (!this.#queue.empty) {
      const chunk = this.#queue.take();
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
      this.#queue.giveBack(chunk.subarray(at));
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
    while (!this.#queue.empty && !body.done && !body.failed) {
      const chunk = this.#queue.take();
      const used = keep ? body.push(chunk) : body.skip(chunk);
      if (used < chunk.length) this.#queue.giveBack(chunk.subarray(used));
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
          if (this.#queue.bytes > this.#maxHead) this.#socket.pause();
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
    const respond: Http1Respond = (status, headers, payload, stream) => {
      if (ex.answer !== undefined) throw new Error("the request was already answered");
      if (!Number.isInteger(status) || status < 100 || status > 999) {
        throw new RangeError(`invalid status code ${status}`);
      }
      ex.answer =
        stream === undefined
          ? { status, headers, body: payload }
          : { status, headers, body: payload, stream };
    };
    // One shape for every request (no spread), and no body reader made where the body is already there.
    const request: Http1Request = {
      method: head.method,
      url: head.target,
      path: head.path,
      query: head.query,
      httpVersion: head.httpVersion,
      rawHeaders: head.rawHeaders,
      body: body ?? EMPTY,
      readBody: body === undefined ? () => this.#readBody(ex) : undefined,
      bodyError: () => ex.body.error,
    };
    this.#options.serve(request, respond, socket).then(
      () => this.#finish(ex),
      () => {
        ex.answer?.stream?.cancel();
        socket.destroy();
      },
    );
  }

  /** The handler reads a body that had not all arrived: `100 Continue` first where asked, then the body. */
  #readBody(ex: Exchange): Promise<Buffer> {
    ex.bodyPromise ??= new Promise<Buffer>((resolve) => {
      const socket = this.#socket;
      if (ex.head.expectContinue && !ex.continueSent) {
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
      // the connection, even when the client sent it anyway: those bytes, or what follows them,
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
    const written = writeAnswer(this.#socket, answer, {
      httpVersion: ex.head.httpVersion,
      method: ex.head.method,
      close,
    });
    if (written.close) {
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
      // the answer's write and handles one request at a time per connection (net/http conn.serve). Without this,
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
    writeAnswer(this.#socket, answer, { httpVersion: head.httpVersion, method: head.method, close: true });
  }

  /** `-max-body-bytes` (beyond upstream): 413, nothing served, the connection closed. */
  #tooLarge(head: RequestHead): void {
    this.#options.onTooLarge?.(head.path);
    this.#writeClosing(head, BODY_TOO_LARGE);
    this.#close();
  }

  #refuse(refusal: Refusal): void {
    this.#closed = true;
    this.#queue.clear();
    endAndClose(this.#socket, refusal.refusal);
  }

  /** Ends the connection (Go's closeWriteAndWait); nothing more is read as a request. */
  #close(): void {
    this.#closed = true;
    this.#queue.clear();
    endAndClose(this.#socket);
  }

  /** Drops the CR/LF bytes Go drops after a POST; false while the queue holds nothing else yet. */
  #skipLeadingBreaks(): boolean {
    if (this.#leadingBreaks > 0)
      this.#leadingBreaks -= this.#queue.dropLeading(CR_OR_LF, this.#leadingBreaks);
    if (this.#leadingBreaks > 0 && !this.#queue.empty) this.#leadingBreaks = 0;
    return this.#leadingBreaks === 0 || !this.#queue.empty || this.#ended;
  }
}
