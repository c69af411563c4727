import { gunzipSync } from "node:zlib";
import { AggregationError, BodyTooLargeError, ConsistencyError, LimitError, ParseError } from "../errors.js";
import { decodeUtf8Lossless, hasInvalidUtf8 } from "../exposition/lossless-utf8.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import { decodeDelimitedProtobuf, isDelimitedProtobuf } from "../exposition/parse-protobuf.js";
import { parseText } from "../exposition/parse-text.js";
import { protobufCodec } from "../exposition/protobuf-codec.js";
import { type GroupingLabels, parseGroupingKey } from "../grouping-key.js";
import { decodeSnappyFrames } from "../snappy-frames.js";
import { groupingNotUtf8 } from "../store/consistency-check.js";
import type { PushRejection } from "../store/metric-store.js";
import { preparePush } from "../store/prepared-push.js";
import {
  errorResponse,
  type GatewayContext,
  type GatewayRequest,
  type GatewayResponse,
} from "./responses.js";

/**
 * `PUT` (replace the group) and `POST` (replace the pushed families inside it) on `/metrics/job/...`, as upstream's
 * handler/push.go: decode the body, parse the grouping key, parse text or delimited protobuf, and submit; 200 once
 * applied, 202 without the consistency check, 400 with the parser's or the check's message. The work is queued
 * behind the writes that came before (handlers/write-queue.ts), so a scrape does not wait for it.
 */
export function push(
  req: GatewayRequest,
  options: { ctx: GatewayContext; rest: string; replace: boolean },
): Promise<GatewayResponse> {
  return options.ctx.writes.run(() => applyPush(req, options));
}

/**
 * The push itself, synchronous up to the store's call (no await before it), so the store sees the queued writes in
 * their order.
 */
function applyPush(
  req: GatewayRequest,
  options: { ctx: GatewayContext; rest: string; replace: boolean },
): GatewayResponse | Promise<GatewayResponse> {
  const { ctx } = options;
  let labels: GroupingLabels;
  let families: MetricFamily[];
  try {
    ({ labels, families } = readPush(req, options));
  } catch (error) {
    return errorResponse(error);
  }
  const notUtf8 = groupingLabelsNotUtf8({ labels, families }, ctx);
  if (notUtf8 !== undefined) return notUtf8;
  let rejected: ReturnType<GatewayContext["store"]["push"]>;
  try {
    rejected = ctx.store.push({
      labels,
      families,
      replace: options.replace,
      now: ctx.now(),
      check: ctx.check,
    });
  } catch (error) {
    return errorResponse(error);
  }
  // A shared store (Redis) confirms later; the memory store has applied the push already.
  return rejected instanceof Promise
    ? rejected.then((r) => pushAnswer(r, ctx), errorResponse)
    : pushAnswer(rejected, ctx);
}

/**
 * A push request read as upstream's handler reads it: the body decoded (`Content-Encoding` gzip or snappy, within
 * `--push.max-body-bytes`), the grouping key from the path after `/metrics/`, the families parsed as text or
 * delimited protobuf. Also what an aggregating push reads (handlers/aggregate.ts).
 *
 * @throws {PushgatewayError} the 400 (or 413) the push is answered with
 */
export function readPush(
  req: GatewayRequest,
  options: { ctx: GatewayContext; rest: string },
): { labels: GroupingLabels; families: MetricFamily[] } {
  const { ctx } = options;
  const tooLarge = () =>
    new BodyTooLargeError(
      `push body exceeds the limit of ${ctx.maxBodyBytes} bytes set by --push.max-body-bytes; split the push or raise the limit`,
    );
  if (ctx.maxBodyBytes > 0 && req.body.length > ctx.maxBodyBytes) throw tooLarge();
  let body = req.body;
  // Upstream decodes the body before routing (main.go decodeRequest): a bad gzip header fails before the path is
  // looked at, while snappy errors surface when the body is read, after the grouping key.
  const encoding = (req.headers["content-encoding"] ?? "").toLowerCase();
  if (encoding === "gzip") {
    try {
      // The limit also bounds the inflated size, so a small gzip bomb cannot get round it.
      body = gunzipSync(body, ctx.maxBodyBytes > 0 ? { maxOutputLength: ctx.maxBodyBytes } : {});
    } catch (cause) {
      if ((cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
      throw new ParseError(gzipErrorText(body), { cause });
    }
  }
  const labels = parseGroupingKey(options.rest, { utf8: ctx.utf8Names });
  if (encoding === "snappy") {
    try {
      body = decodeSnappyFrames(body, { maxBytes: ctx.maxBodyBytes });
    } catch (cause) {
      if (cause instanceof RangeError) throw tooLarge();
      throw cause;
    }
  }
  const contentType = req.headers["content-type"] ?? "";
  const families = isDelimitedProtobuf(contentType)
    ? decodeDelimitedProtobuf(body, { utf8: ctx.utf8Names, codec: protobufCodec() })
    : parseText(decodeUtf8Lossless(body), { utf8: ctx.utf8Names });
  return { labels, families };
}

/**
 * Grouping labels that are not UTF-8: refused before the store is touched (see `groupingNotUtf8`); also for an
 * aggregating push (handlers/aggregate.ts).
 */
export function groupingLabelsNotUtf8(
  push: { labels: GroupingLabels; families: MetricFamily[] },
  ctx: GatewayContext,
): GatewayResponse | undefined {
  if (!Object.values(push.labels).some(hasInvalidUtf8)) return undefined;
  // Upstream's checkWriteRequest refuses timestamps before it gathers anything (storage/diskmetricstore.go).
  if (ctx.check && push.families.some((f) => f.metrics.some((m) => m.timestampMs !== undefined)))
    return errorResponse(
      new ConsistencyError(
        "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps",
      ),
    );
  const notUtf8 = groupingNotUtf8(preparePush(push), { labels: push.labels, now: ctx.now() });
  if (notUtf8 === undefined) return undefined;
  return errorResponse(
    new ConsistencyError(`pushed metrics are invalid or inconsistent with existing metrics: ${notUtf8}`),
  );
}

/** The answer to an applied push: 200 (202 unchecked), or the rejection's 400 or 429. */
export function pushAnswer(rejected: PushRejection | undefined, ctx: GatewayContext): GatewayResponse {
  // An aggregating push that does not fit its group changed nothing: refused with or without the check.
  if (rejected?.kind === "aggregation") return errorResponse(new AggregationError(rejected.message));
  // Unchecked, upstream answers 202 before the write is looked at; a push with timestamps is then dropped silently
  // (only its failure time is set), as the store did above.
  if (rejected !== undefined && !(rejected.kind === "inconsistent" && !ctx.check)) {
    return errorResponse(
      rejected.kind === "limit"
        ? new LimitError(rejected.message)
        : new ConsistencyError(
            `pushed metrics are invalid or inconsistent with existing metrics: ${rejected.message}`,
          ),
    );
  }
  return { status: ctx.check ? 200 : 202, headers: {}, body: "" };
}

/**
 * Go's gzip reader's error for a body Node could not inflate: it reads a 10-byte header first (`EOF` when empty,
 * `unexpected EOF` when short), checks the magic (`gzip: invalid header`), and a stream cut short is again
 * `unexpected EOF` (compress/gzip gunzip.go readHeader).
 */
function gzipErrorText(body: Buffer): string {
  if (body.length === 0) return "EOF";
  if (body.length < 10) return "unexpected EOF";
  if (body[0] !== 0x1f || body[1] !== 0x8b || body[2] !== 8) return "gzip: invalid header";
  return "unexpected EOF";
}
