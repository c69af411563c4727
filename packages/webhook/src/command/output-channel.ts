import type { CommandResult } from "./node-spawn.js";

/** What a reader of an {@link OutputChannel} gets next: a piece of output, or the end of the run. */
export type OutputEvent = { readonly chunk: Buffer } | { readonly result: CommandResult };

/**
 * Hands a running command's output to one reader a piece at a time (beyond upstream: `stream-command-output`).
 * `push` is the runner's `onOutput`: it returns a promise the runner waits for, settled once the reader has taken
 * the piece, so at most one piece is held here and a slow reader slows the command (its pipe fills) instead of
 * memory growing. Once the reader has gone (`close`), pieces are taken at once and dropped.
 */
export class OutputChannel {
  #held: { chunk: Buffer; taken: () => void } | undefined;
  #result: CommandResult | undefined;
  #waiting: ((event: OutputEvent) => void) | undefined;
  #closed = false;

  /** The runner's `onOutput`. */
  readonly push = (chunk: Buffer): Promise<void> | undefined => {
    if (this.#closed) return undefined;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting({ chunk });
      return undefined;
    }
    return new Promise((taken) => {
      this.#held = { chunk, taken };
    });
  };

  /** The run ended (its output has all been pushed). */
  end(result: CommandResult): void {
    this.#result = result;
    const waiting = this.#waiting;
    if (waiting !== undefined && this.#held === undefined) {
      this.#waiting = undefined;
      waiting({ result });
    }
  }

  /** The next piece, or the end of the run once every piece was taken. */
  next(): Promise<OutputEvent> {
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      held.taken();
      return Promise.resolve({ chunk: held.chunk });
    }
    if (this.#result !== undefined) return Promise.resolve({ result: this.#result });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** The reader has gone: what is held, and all that follows, is dropped. */
  close(): void {
    this.#closed = true;
    this.#held?.taken();
    this.#held = undefined;
  }
}
