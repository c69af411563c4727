import { gunzipSync } from "node:zlib";
import {
  BodyTooLargeError,
  httpStatus,
  ParseError,
  PushgatewayError,
  StoreUnavailableError,
} from "../errors.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import {
  decodeExportRequest,
  type ExportRequest,
  encodeExportResponse,
  encodeStatus,
  type OtlpEncoding,
} from "../otlp/otlp-codec.js";
import { translateExport } from "../otlp/otlp-groups.js";
import type { PushRejection } from "../store/metric-store.js";
import type { GatewayContext, GatewayRequest, GatewayResponse } from "./responses.js";

// google.rpc.Code values of the OTLP/HTTP error answers.
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

const CONTENT_TYPES: Readonly<Record<OtlpEncoding, string>> = {
  protobuf: "application/x-protobuf",
  json: "application/json",
};

/**
 * Beyond upstream (open-telemetry/opentelemetry-js#1278: no Pushgateway exporter): `POST <prefix>/v1/metrics`, an
 * OTLP/HTTP metrics receiver (OTLP specification "OTLP/HTTP"). The export is translated (otlp/otlp-groups.ts) into,
 * per resource, a POST of its gauges, cumulative sums, histograms and summaries and an aggregating push of its delta
 * sums and histograms, each judged by the store as any push is. The answer is 200 with an
 * `ExportMetricsServiceResponse` in the request's encoding, `partial_success` counting the data points not kept and
 * why; a body that does not decode is 400 with a `google.rpc.Status`, and nothing is stored.
 */
export function otlpMetrics(req: GatewayRequest, ctx: GatewayContext): Promise<GatewayResponse> {
  const mediaType = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const encoding: OtlpEncoding | undefined =
    mediaType === "application/x-protobuf"
      ? "protobuf"
      : mediaType === "application/json"
        ? "json"
        : undefined;
  if (encoding === undefined)
    return Promise.resolve(
      plainAnswer(
        415,
        `unsupported Content-Type ${JSON.stringify(mediaType)}: OTLP/HTTP takes application/x-protobuf or application/json`,
      ),
    );
  let request: ExportRequest;
  try {
    request = decodeExportRequest(inflate(req, ctx), encoding);
  } catch (error) {
    return Promise.resolve(statusAnswer(error, encoding));
  }
  return ctx.writes.run(() => store(request, { ctx, encoding }));
}

/** Submits every group's changes in one run (so they reach the store in order), then answers once all settled. */
async function store(
  request: ExportRequest,
  options: { ctx: GatewayContext; encoding: OtlpEncoding },
): Promise<GatewayResponse> {
  const { ctx, encoding } = options;
  const translation = translateExport(request);
  let rejected = translation.rejected;
  const errors = [...translation.errors];
  const now = ctx.now();
  const submitted: { outcome: Promise<PushRejection | undefined>; points: number; job: string }[] = [];
  try {
    for (const group of translation.groups) {
      const job = Object.entries(group.labels)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(",");
      if (group.replace.length > 0) {
        const outcome = ctx.store.push({
          labels: group.labels,
          families: group.replace,
          replace: false,
          now,
          check: ctx.check,
        });
        submitted.push({ outcome: Promise.resolve(outcome), points: points(group.replace), job });
      }
      if (group.add.length > 0) {
        // Delta points are increments: sums, up-down ones included, add up.
        const outcome = ctx.store.aggregate({
          labels: group.labels,
          families: group.add,
          now,
          check: ctx.check,
          gauges: "sum",
        });
        submitted.push({ outcome: Promise.resolve(outcome), points: points(group.add), job });
      }
    }
    for (const { outcome, points: n, job } of submitted) {
      const rejection = await outcome;
      if (rejection === undefined) continue;
      rejected += n;
      errors.push(`{${job}}: ${rejection.message}`);
    }
  } catch (error) {
    return statusAnswer(error, encoding);
  }
  return {
    status: 200,
    headers: { "Content-Type": CONTENT_TYPES[encoding] },
    body: toBuffer(encodeExportResponse({ rejected, message: errors.join("; ") }, encoding)),
  };
}

function points(families: readonly MetricFamily[]): number {
  return families.reduce((n, f) => n + f.metrics.length, 0);
}

/** The body, gunzipped when `Content-Encoding: gzip` (what the OpenTelemetry exporters send with compression). */
function inflate(req: GatewayRequest, ctx: GatewayContext): Buffer {
  const tooLarge = () =>
    new BodyTooLargeError(
      `OTLP body exceeds the limit of ${ctx.maxBodyBytes} bytes set by --push.max-body-bytes; export in smaller batches or raise the limit`,
    );
  if (ctx.maxBodyBytes > 0 && req.body.length > ctx.maxBodyBytes) throw tooLarge();
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return req.body;
  if (encoding !== "gzip")
    throw new ParseError(
      `unsupported Content-Encoding ${JSON.stringify(encoding)}: OTLP/HTTP takes gzip or none`,
    );
  try {
    return gunzipSync(req.body, ctx.maxBodyBytes > 0 ? { maxOutputLength: ctx.maxBodyBytes } : {});
  } catch (cause) {
    if ((cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw new ParseError(`cannot gunzip the OTLP body: ${(cause as Error).message}`, { cause });
  }
}

/** An error as OTLP/HTTP answers it: its status, a `google.rpc.Status` in the request's encoding. */
function statusAnswer(error: unknown, encoding: OtlpEncoding): GatewayResponse {
  if (!(error instanceof PushgatewayError)) throw error;
  const status = httpStatus(error);
  const code =
    error instanceof StoreUnavailableError
      ? UNAVAILABLE
      : error instanceof BodyTooLargeError
        ? RESOURCE_EXHAUSTED
        : INVALID_ARGUMENT;
  return {
    status,
    headers: { "Content-Type": CONTENT_TYPES[encoding] },
    body: toBuffer(encodeStatus({ code, message: error.message }, encoding)),
  };
}

function plainAnswer(status: number, message: string): GatewayResponse {
  return {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    body: `${message}\n`,
  };
}

function toBuffer(body: Buffer | string): Buffer {
  return typeof body === "string" ? Buffer.from(body) : body;
}
