/** Where a streamed answer's body goes: the connection, framed by whoever writes the answer. */
export interface BodySink {
  /** Writes a piece; resolves once the connection can take more (at once while its buffer has room, or if gone). */
  write(chunk: Buffer | string): Promise<void>;
  /** Aborted when the client has gone (the connection closed) before the body ended. */
  readonly gone: AbortSignal;
}

/**
 * A body produced while it is sent (beyond upstream: `stream-command-output`, a job's output). The connection
 * writes the head, then lets `pump` write the body through a sink that waits for the client (so nothing piles up in
 * memory), and sends the trailers `pump` resolves with. When the body will never be written (a HEAD request, a
 * connection that closed first), `cancel` is called instead.
 */
export class StreamedBody {
  readonly #pump: (sink: BodySink) => Promise<Readonly<Record<string, string>>>;
  readonly #cancel: () => void;
  #used = false;
  #written!: (bytes: number) => void;
  /** Resolves with the bytes of body written once the body has ended (0 when it never started), for the access log. */
  readonly written: Promise<number> = new Promise((resolve) => {
    this.#written = resolve;
  });

  constructor(
    pump: (sink: BodySink) => Promise<Readonly<Record<string, string>>>,
    cancel: () => void = () => {},
  ) {
    this.#pump = pump;
    this.#cancel = cancel;
  }

  /** Writes the body; resolves with the trailers. Only the first call of `pump` or `cancel` does anything. */
  async pump(sink: BodySink): Promise<Readonly<Record<string, string>>> {
    if (this.#used) return {};
    this.#used = true;
    let bytes = 0;
    const counted: BodySink = {
      gone: sink.gone,
      write: (chunk) => {
        bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
        return sink.write(chunk);
      },
    };
    try {
      return await this.#pump(counted);
    } finally {
      this.#written(bytes);
    }
  }

  cancel(): void {
    if (this.#used) return;
    this.#used = true;
    this.#written(0);
    this.#cancel();
  }
}

/** What a sink writes to: a socket or a node:http response. */
export interface Writable {
  write(chunk: Buffer | string): boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  removeListener(event: "drain" | "close", listener: () => void): unknown;
  readonly destroyed: boolean;
}

/**
 * A sink over a writable: `frame` wraps each piece (chunked encoding, or nothing), and a write the writable's buffer
 * cannot take waits for `drain`, so memory stays flat for a client that reads slowly.
 */
export function writableSink(
  out: Writable,
  options: { frame: (chunk: Buffer | string) => (Buffer | string)[]; gone: AbortSignal },
): BodySink {
  return {
    gone: options.gone,
    write: (chunk) => {
      if (out.destroyed || options.gone.aborted || chunk.length === 0) return Promise.resolve();
      let ok = true;
      for (const piece of options.frame(chunk)) ok = out.write(piece) && ok;
      if (ok) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          out.removeListener("drain", done);
          out.removeListener("close", done);
          resolve();
        };
        out.once("drain", done);
        out.once("close", done);
      });
    },
  };
}

/** One piece in HTTP/1.1 chunked encoding (RFC 9112 §7.1). */
export function chunkFrame(chunk: Buffer | string): (Buffer | string)[] {
  const size = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
  return [`${size.toString(16)}\r\n`, chunk, "\r\n"];
}

/** The end of a chunked body: the last chunk and the trailer fields (RFC 9112 §7.1.2). */
export function chunkedEnd(trailers: Readonly<Record<string, string>>): string {
  let text = "0\r\n";
  for (const [name, value] of Object.entries(trailers))
    text += `${name}: ${value.replace(/[\r\n]/g, " ")}\r\n`;
  return `${text}\r\n`;
}
