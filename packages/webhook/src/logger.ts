/** Where log lines go and how they look: upstream's `[webhook] 2006/01/02 15:04:05 ` lines, or JSON lines. */
export class Logger {
  readonly verbose: boolean;
  readonly #json: boolean;
  readonly #now: () => Date;
  #out: { write(s: string): unknown };

  /**
   * @param options.verbose whether `log` writes at all (upstream discards every log line without `-verbose`)
   */
  constructor(options: {
    readonly verbose: boolean;
    readonly format: "text" | "json";
    readonly now: () => Date;
    readonly out: { write(s: string): unknown };
  }) {
    this.verbose = options.verbose;
    this.#json = options.format === "json";
    this.#now = options.now;
    this.#out = options.out;
  }

  /** Switches the output (`-logfile`, once opened). */
  setOutput(out: { write(s: string): unknown }): void {
    this.#out = out;
  }

  /** One line as upstream's `log` package writes it; a line ending in `\n` gets an empty line after it, as there. */
  format(line: string): string {
    const now = this.#now();
    if (this.#json) return `${JSON.stringify({ time: now.toISOString(), msg: line })}\n`;
    return `[webhook] ${goLogStamp(now)} ${line}\n`;
  }

  /** Logs a line when verbose. */
  log(line: string): void {
    if (this.verbose) this.#out.write(this.format(line));
  }

  /** Writes text as it is (the `-debug` dumps). */
  writeRaw(text: string): void {
    this.#out.write(text);
  }
}

/** Go's `log` date and time (`2006/01/02 15:04:05`, local time). */
export function goLogStamp(now: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}/${p(now.getMonth() + 1)}/${p(now.getDate())} ${p(now.getHours())}:${p(now.getMinutes())}:${p(now.getSeconds())}`;
}
