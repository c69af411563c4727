import type { CommandDeps } from "./command/command.js";
import { type CommandResult, runCommand } from "./command/command.js";
import { DEFAULT_GRACE_MS, type RunRequest } from "./command/node-spawn.js";
import { type Admission, RunQueue } from "./command/run-queue.js";
import { detectContentType } from "./go/sniff.js";
import { goStatusText } from "./go/status-text.js";
import { EXEC_ERROR, type Executor, streamAnswer } from "./hook-stream.js";
import type { Hook } from "./hooks/hook.js";
import type { DeliveryLog } from "./jobs/delivery-log.js";
import type { Job, JobStore } from "./jobs/job-store.js";
import type { HookMetrics, HookOutcome } from "./metrics.js";
import { canonicalHeaderKey, type RequestData } from "./request/request-values.js";
import type { HookResponse } from "./response/hook-response.js";

const TEXT = "text/plain; charset=utf-8";

type Headers = (readonly [string, string])[];

/** What running a triggered hook needs from the server. */
export interface RunContext {
  readonly command: CommandDeps;
  readonly log: (line: string) => void;
  /** Runs of each hook in progress, for `maximum-concurrent-executions`. */
  readonly running: Map<string, number>;
  /** Runs in progress and waiting (`queue`); made over `running` when not given. */
  readonly queue?: RunQueue;
  /** `-jobs-dir` (beyond upstream): every run is a job; delivery ids for `deduplicate-by`. */
  readonly jobs?: { readonly store: JobStore; readonly deliveries: DeliveryLog };
  /** `-metrics` (beyond upstream): where each request's outcome and each command's run are counted. */
  readonly metrics?: HookMetrics;
}

/** A triggered hook's request: what its command sees, and the answer's headers so far. */
export interface TriggeredRequest {
  readonly data: RequestData;
  readonly rid: string;
  readonly headers: Headers;
  /** The request's `Accept` header (`text/event-stream` asks a streamed hook for Server-Sent Events). */
  readonly accept: string;
  /** Watches for the client leaving before a streamed answer starts (see `HookRequest.onClientGone`). */
  readonly onClientGone?: ((listener: () => void) => () => void) | undefined;
}

/**
 * Runs a hook whose rules are satisfied and answers as upstream (webhook.go hookHandler): with
 * `include-command-output-in-response`, the output once the command ends (500 on failure); otherwise
 * `response-message` at once, the command running on. Beyond upstream, each only when configured: the output
 * streamed as it is produced (`stream-command-output`), a job per run (`-jobs-dir`), waiting runs (`queue`), and
 * deliveries seen before answered from their first job (`deduplicate-by`).
 */
export async function runTriggered(
  hook: Hook,
  req: TriggeredRequest,
  ctx: RunContext,
): Promise<HookResponse> {
  const { rid, headers } = req;
  const id = hook.id;
  const queue = ctx.queue ?? queueFor(ctx.running);
  const jobs = ctx.jobs;
  let job: Job | undefined;
  let unclaim = () => {};
  const given =
    jobs === undefined || hook.deduplicateBy === ""
      ? undefined
      : req.data.headers[canonicalHeaderKey(hook.deduplicateBy)];
  const delivery = typeof given === "string" && given !== "" ? given : undefined;
  if (jobs !== undefined && delivery !== undefined) {
    // Claimed before anything else (synchronously): of two copies arriving at once, one runs.
    const first = jobs.deliveries.claim(id, delivery, () => {
      const created = jobs.store.create(id);
      job = created;
      return created.id;
    });
    if (first !== undefined) {
      ctx.log(
        `[${rid}] ${id} delivery ${JSON.stringify(delivery)} already ran as job ${first}; not run again`,
      );
      ctx.metrics?.request(id, "duplicate");
      return {
        status: 200,
        ...sniffed(
          [...headers, ["X-Webhook-Job-Id", first], ["Location", `/jobs/${first}`]],
          hook.responseMessage,
        ),
        body: hook.responseMessage,
      };
    }
    unclaim = () => jobs.deliveries.forget(id, delivery);
  }
  const admission = queue.admit(hook);
  if (admission.kind === "full") {
    unclaim();
    job?.abandon("cancelled", "refused: too many runs of this hook");
    ctx.log(`[${rid}] reached concurrency limit for: ${id} (max=${hook.maximumConcurrentExecutions})`);
    ctx.metrics?.request(id, "too_many_requests");
    // Retry-After only with a queue (beyond upstream): without one the answer stays the plain limit's.
    const retry: Headers = hook.queue > 0 ? [["Retry-After", String(admission.retryAfter)]] : [];
    return {
      status: 429,
      headers: [...headers, ...retry, ["Content-Type", TEXT]],
      body: "Too many concurrent executions of this hook.",
    };
  }
  job ??= jobs?.store.create(id);
  if (job !== undefined) headers.push(["X-Webhook-Job-Id", job.id]);
  const execute = executor(hook, { req, ctx, queue, admission, job, unclaim });
  if (hook.streamCommandOutput) {
    const located: Headers = job === undefined ? headers : [...headers, ["Location", `/jobs/${job.id}`]];
    return streamAnswer(execute, {
      headers: located,
      sse: /(^|[,\s])text\/event-stream\b/i.test(req.accept),
      status: successCode(hook, ctx, rid),
      onGone: () => (job === undefined ? execute.abort() : job.stop("the client went away")),
      watchGone: req.onClientGone,
    });
  }
  if (hook.includeCommandOutputInResponse) {
    const chunks: Buffer[] = [];
    const result = await execute(job === undefined ? undefined : (chunk) => void chunks.push(chunk));
    if (result === undefined) return cancelledAnswer(headers);
    const output = job === undefined ? result.output : Buffer.concat(chunks);
    if (result.error !== undefined) {
      return hook.includeCommandOutputInResponseOnError
        ? { status: 500, ...sniffed(headers, output), body: output }
        : {
            status: 500,
            // Upstream sets its text/plain type after WriteHeader (webhook.go hookHandler): the wire keeps a
            // Content-Type from `response-headers`, else Go sniffs one; only the -debug dump sees text/plain.
            ...sniffed(headers, EXEC_ERROR),
            body: EXEC_ERROR,
            dumpHeaders: [
              ...headers.filter(([k]) => k.toLowerCase() !== "content-type"),
              ["Content-Type", TEXT],
            ],
          };
    }
    // Upstream checks the configured code (and logs an unknown one) only once the command has succeeded.
    return { status: successCode(hook, ctx, rid), ...sniffed(headers, output), body: output };
  }
  // The answer is already on its way; a failure here can only be logged (upstream's goroutine does the same).
  execute().catch((error: Error) => ctx.log(`[${rid}] error occurred: ${error.message}`));
  const located: Headers = job === undefined ? headers : [...headers, ["Location", `/jobs/${job.id}`]];
  return {
    status: successCode(hook, ctx, rid),
    ...sniffed(located, hook.responseMessage),
    body: hook.responseMessage,
  };
}

function executor(
  hook: Hook,
  parts: {
    req: TriggeredRequest;
    ctx: RunContext;
    queue: RunQueue;
    admission: Admission;
    job: Job | undefined;
    /** Forgets the delivery id this run claimed (`deduplicate-by`): a run that never started may be sent again. */
    unclaim: () => void;
  },
): Executor {
  const { req, ctx, queue, admission, job } = parts;
  const id = hook.id;
  const stop = new AbortController();
  const abort = () => {
    // A run taken out of the queue is over at once, so the answer to `DELETE /jobs/<id>` already says `cancelled`.
    if (admission.kind === "queued" && admission.cancel())
      job?.abandon("cancelled", job.stopReason ?? "cancelled before it started");
    stop.abort();
  };
  if (job !== undefined) job.onStop(abort);
  const run = async (onOutput?: (chunk: Buffer) => void | Promise<void>) => {
    if (admission.kind === "queued" && !(await admission.turn)) {
      if (job?.finished === false)
        job.abandon("cancelled", job.stopReason ?? "the server shut down before the job started");
      parts.unclaim();
      ctx.metrics?.request(id, "cancelled");
      return undefined;
    }
    job?.start();
    const started = performance.now();
    const ended = ctx.metrics?.commandStarted(id);
    let outcome: HookOutcome = "command_failed";
    const tee =
      job === undefined
        ? onOutput
        : (chunk: Buffer) => {
            job.append(chunk);
            return onOutput?.(chunk);
          };
    // Only what the hook asked for changes how the command runs; otherwise it runs exactly as before.
    const control: Pick<RunRequest, "onOutput" | "abort" | "graceMs"> | undefined =
      tee === undefined && job === undefined
        ? undefined
        : {
            ...(tee === undefined ? {} : { onOutput: tee }),
            abort: stop.signal,
            graceMs: hook.killGraceSeconds > 0 ? hook.killGraceSeconds * 1000 : DEFAULT_GRACE_MS,
          };
    let result: CommandResult | undefined;
    try {
      result = await runCommand(hook, {
        data: req.data,
        deps: ctx.command,
        rid: req.rid,
        ...(control === undefined ? {} : { control }),
      });
      outcome = result.timedOut ? "timeout" : result.error !== undefined ? "command_failed" : "executed";
      return result;
    } finally {
      queue.release(id, (performance.now() - started) / 1000);
      ended?.();
      ctx.metrics?.request(id, outcome);
      if (result === undefined) job?.abandon("failed", "the command could not be run");
      else job?.finish(result);
    }
  };
  return Object.assign(run, { abort });
}

/** A run cancelled while it waited for its turn (a shutdown, `DELETE /jobs/<id>`): nothing ran. */
function cancelledAnswer(headers: Headers): HookResponse {
  return {
    status: 503,
    headers: [...headers, ["Content-Type", TEXT]],
    body: "The run was cancelled before it started.",
  };
}

const queues = new WeakMap<Map<string, number>, RunQueue>();

/** The queue over a context's run counts (one per context, for contexts made without one). */
function queueFor(running: Map<string, number>): RunQueue {
  let queue = queues.get(running);
  if (queue === undefined) {
    queue = new RunQueue(running);
    queues.set(running, queue);
  }
  return queue;
}

/** The hook's `success-http-response-code`, or 200 (an unknown code is logged, as upstream). */
function successCode(hook: Hook, ctx: Pick<RunContext, "log">, rid: string): number {
  if (hook.successHttpResponseCode === 0) return 200;
  const known = knownStatus(hook.successHttpResponseCode);
  if (known === undefined) {
    ctx.log(
      `[${rid}] ${hook.id} got matched, but the configured return code ${hook.successHttpResponseCode} is unknown - defaulting to 200`,
    );
    return 200;
  }
  return known;
}

/** The code when Go knows it (`http.StatusText` is not empty), else undefined. */
export function knownStatus(code: number): number | undefined {
  return code !== 0 && goStatusText(code) !== "" ? code : undefined;
}

/**
 * Go sniffs a Content-Type (`http.DetectContentType`) for a non-empty body when none was set; the flag tells the
 * `-debug` dump, which shows only the headers the handler set, to leave it out.
 */
export function sniffed(
  headers: readonly (readonly [string, string])[],
  body: string | Buffer,
): { headers: (readonly [string, string])[]; sniffedContentType?: true } {
  if (body.length === 0 || headers.some(([k]) => k.toLowerCase() === "content-type"))
    return { headers: [...headers] };
  return {
    // Only a string needs encoding; Buffer.from(buffer) would copy all of a command's output to sniff 512 bytes.
    headers: [
      ...headers,
      ["Content-Type", detectContentType(typeof body === "string" ? Buffer.from(body) : body)],
    ],
    sniffedContentType: true,
  };
}
