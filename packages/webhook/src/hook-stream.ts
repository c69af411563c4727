import { exitStatus } from "./command/exit-status.js";
import type { CommandResult } from "./command/node-spawn.js";
import { OutputChannel, type OutputEvent } from "./command/output-channel.js";
import { detectContentType } from "./go/sniff.js";
import { EventStreamEncoder } from "./response/event-stream.js";
import type { HookResponse } from "./response/hook-response.js";
import { StreamedBody } from "./response/streamed-body.js";

const TEXT = "text/plain; charset=utf-8";
/** Upstream's answer when the command fails and its output is not shown. */
export const EXEC_ERROR =
  "Error occurred while executing the hook's command. Please check your logs for more details.";
/** Runs the command once its turn comes; resolves undefined when it was cancelled before it started. */
export interface Executor {
  (onOutput?: (chunk: Buffer) => void | Promise<void>): Promise<CommandResult | undefined>;
  /** Stops the run: its process group (SIGTERM, then SIGKILL after the hook's grace), or its place in the queue. */
  readonly abort: () => void;
}

/** The trailer (or, when the command ended before writing anything, the header) carrying the exit code. */
const EXIT_CODE = "X-Webhook-Exit-Code";

/**
 * `stream-command-output` (beyond upstream: adnanh/webhook#250, PR #549's property): the command's combined output
 * goes to the client as it is produced, chunked, the status (the success code) with the first byte; the exit code
 * follows in the trailer `X-Webhook-Exit-Code` (-1 when a signal ended it). With `Accept: text/event-stream` the
 * body is Server-Sent Events instead (`event: output` per line, `event: exit` with the code). A command that ends
 * before writing anything gets the answer it would get with `include-command-output-in-response`: upstream's 500
 * text when it failed. A client that goes away stops the command (`onGone`). One piece of output at a time is held
 * (see {@link OutputChannel}), so memory stays flat however much the command writes.
 */
export async function streamAnswer(
  execute: Executor,
  options: {
    headers: readonly (readonly [string, string])[];
    sse: boolean;
    status: number;
    onGone: () => void;
    /** Watches for the client leaving before the first byte: a run still queued, or a command silent so far. */
    watchGone?: ((listener: () => void) => () => void) | undefined;
  },
): Promise<HookResponse> {
  const { headers, sse } = options;
  const channel = new OutputChannel();
  void execute(channel.push).then(
    (result) => channel.end(result ?? { output: Buffer.alloc(0), error: "cancelled before it started" }),
    (error: Error) => channel.end({ output: Buffer.alloc(0), error: error.message }),
  );
  // A client gone before the answer starts stops the run too (a queued one leaves the queue, never starting).
  const unwatch = options.watchGone?.(options.onGone);
  const first = await channel.next();
  unwatch?.();
  if ("result" in first) {
    const { code } = exitStatus(first.result);
    const exit = String(code ?? -1);
    if (first.result.error !== undefined) {
      return {
        status: 500,
        headers: [
          ...headers.filter(([k]) => k.toLowerCase() !== "content-type"),
          [EXIT_CODE, exit],
          ["Content-Type", TEXT],
        ],
        body: EXEC_ERROR,
        explicitContentType: true,
      };
    }
    if (!sse) return { status: options.status, headers: [...headers, [EXIT_CODE, exit]], body: "" };
    return {
      status: options.status,
      headers: [...eventStreamHeaders(headers), [EXIT_CODE, exit]],
      body: new EventStreamEncoder().end(exit),
      explicitContentType: true,
    };
  }
  const typed = headers.some(([k]) => k.toLowerCase() === "content-type");
  const streamHeaders: (readonly [string, string])[] = sse
    ? eventStreamHeaders(headers)
    : typed
      ? [...headers]
      : [...headers, ["Content-Type", detectContentType(first.chunk)]];
  const gone = () => {
    channel.close();
    options.onGone();
  };
  const body = new StreamedBody(async (sink) => {
    sink.gone.addEventListener("abort", gone, { once: true });
    const encoder = sse ? new EventStreamEncoder() : undefined;
    let event: OutputEvent = first;
    while ("chunk" in event) {
      await sink.write(encoder === undefined ? event.chunk : encoder.output(event.chunk));
      event = await channel.next();
    }
    sink.gone.removeEventListener("abort", gone);
    const exit = String(exitStatus(event.result).code ?? -1);
    if (encoder !== undefined) await sink.write(encoder.end(exit));
    return { [EXIT_CODE]: exit };
  }, gone);
  return {
    status: options.status,
    headers: [...streamHeaders, ["Trailer", EXIT_CODE], ["X-Accel-Buffering", "no"]],
    body: "",
    stream: body,
    explicitContentType: true,
  };
}

/** Server-Sent Events, not cached or buffered on the way (nginx honours `X-Accel-Buffering`). */
function eventStreamHeaders(headers: readonly (readonly [string, string])[]): (readonly [string, string])[] {
  return [
    ...headers.filter(([k]) => k.toLowerCase() !== "content-type"),
    ["Content-Type", "text/event-stream"],
    ["Cache-Control", "no-cache"],
  ];
}
