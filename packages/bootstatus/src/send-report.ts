import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { ReportError } from "./errors.js";
import type { ReportTarget } from "./report-target.js";
import { shownUrl } from "./report-target.js";
import { VERSION } from "./version.js";

/** How long `report` keeps retrying when no `--timeout` bounds it: 5 minutes from the first attempt. */
export const REPORT_RETRY_MS = 5 * 60 * 1000;
/** The first pause between attempts; it doubles up to REPORT_BACKOFF_MAX_MS. */
export const REPORT_BACKOFF_MS = 500;
export const REPORT_BACKOFF_MAX_MS = 30_000;
// An attempt never takes longer than this (nor past the deadline, but always at least MIN_ATTEMPT_MS).
const ATTEMPT_MS = 30_000;
const MIN_ATTEMPT_MS = 1000;
// What of an error response is quoted in the message.
const QUOTED_BYTES = 512;

/** The request of one report: what, where, how it is signed, and whom TLS trusts. */
export interface ReportRequest {
  target: ReportTarget;
  body: string;
  /** BOOTSTATUS_REPORT_SECRET: signs a webhook POST (X-Hub-Signature-256, as GitHub and adnanh/webhook read it). */
  secret: string | undefined;
  /** CA certificates for https (trust-store.ts). */
  ca: string[];
}

/** Clock and deadline of the retries. */
export interface RetryOptions {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Absolute ms after which no new attempt starts (`--timeout`, else 5 minutes). */
  deadline: number;
  onRetry?(attempt: number, error: string, pauseMs: number): void;
}

/** `sha256=<hex HMAC-SHA256 of the body>`, the X-Hub-Signature-256 value adnanh/webhook's payload-hmac-sha256 checks. */
export function signature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

function headersFor(request: ReportRequest): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": `bootstatus/${VERSION}`,
    "content-length": String(Buffer.byteLength(request.body)),
  };
  const { url } = request.target;
  if (url.username !== "" || url.password !== "") {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString("base64")}`;
  }
  if (request.target.kind === "pushgateway") {
    headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
  } else {
    headers["content-type"] = "application/json";
    if (request.secret !== undefined)
      headers["x-hub-signature-256"] = signature(request.body, request.secret);
  }
  return headers;
}

/** One attempt: the HTTP status, or an error message (connection, TLS, timeout). */
function attempt(request: ReportRequest, timeoutMs: number): Promise<{ status: number; text: string }> {
  const { url } = request.target;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: request.target.kind === "pushgateway" ? "PUT" : "POST",
        headers: headersFor(request),
        ca: request.ca,
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (text.length < QUOTED_BYTES) text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: text.slice(0, QUOTED_BYTES).trim() }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(request.body);
  });
}

// Worth another try: the receiver is busy, down or restarting. Other 4xx answers will not change by themselves.
function retryable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * Sends the report, retrying with exponential back-off (0.5 s doubling to 30 s) until a 2xx answer or the
 * deadline; at least one attempt is made. Resolves with the status and the number of attempts; throws ReportError
 * with the last error otherwise.
 */
export async function sendReport(
  request: ReportRequest,
  options: RetryOptions,
): Promise<{ status: number; attempts: number }> {
  const where = shownUrl(request.target.url);
  let pause = REPORT_BACKOFF_MS;
  for (let attempts = 1; ; attempts++) {
    const left = options.deadline - options.now();
    let problem: string;
    let final = false;
    try {
      const answer = await attempt(request, Math.max(MIN_ATTEMPT_MS, Math.min(ATTEMPT_MS, left)));
      if (answer.status >= 200 && answer.status < 300) return { status: answer.status, attempts };
      problem = `HTTP ${answer.status}${answer.text === "" ? "" : `: ${answer.text.replaceAll("\n", " ")}`}`;
      final = !retryable(answer.status);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      problem = e.code === undefined ? e.message : `${e.code}: ${e.message}`;
    }
    const wait = Math.min(pause, options.deadline - options.now());
    if (final || wait <= 0) {
      throw new ReportError(`cannot send the report to ${where} (attempt ${attempts}): ${problem}`);
    }
    options.onRetry?.(attempts, problem, wait);
    await options.sleep(wait);
    pause = Math.min(pause * 2, REPORT_BACKOFF_MAX_MS);
  }
}
