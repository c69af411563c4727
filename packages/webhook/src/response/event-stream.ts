/** Lines longer than this are sent in pieces rather than held back waiting for their end. */
const MAX_PENDING_LINE = 64 * 1024;

/**
 * A command's output as Server-Sent Events (WHATWG HTML §9.2, `text/event-stream`): each line it writes becomes an
 * `event: output` message with the line as its `data`, and the run's end an `event: exit` message with the exit
 * code. Output is decoded as UTF-8 across pieces (a character split between two reads stays whole), and a line is
 * sent once its end arrives (CR, LF or CRLF, as the format splits them), or in pieces past 64 KiB.
 */
export class EventStreamEncoder {
  readonly #decoder = new TextDecoder("utf-8");
  #pending = "";

  /** The messages for a piece of output: its complete lines. */
  output(chunk: Buffer): string {
    const text = this.#pending + this.#decoder.decode(chunk, { stream: true });
    // A trailing CR may be the first half of a CRLF: wait for the next piece.
    const lines = text.split(/\r\n|\r(?!$)|\n/);
    this.#pending = lines.pop() ?? "";
    if (this.#pending.length > MAX_PENDING_LINE) {
      lines.push(this.#pending);
      this.#pending = "";
    }
    return lines.map((line) => message("output", line.replace(/\r$/, ""))).join("");
  }

  /** The rest of the output (a last line without its end), then the `exit` message. */
  end(code: string): string {
    const rest = this.#pending + this.#decoder.decode();
    this.#pending = "";
    return (rest === "" ? "" : message("output", rest.replace(/\r$/, ""))) + message("exit", code);
  }
}

function message(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
