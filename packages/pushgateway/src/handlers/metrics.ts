import { exposedFamilies } from "../exposition/exposed-families.js";
import { formatText } from "../exposition/format-text.js";
import { negotiate } from "../exposition/negotiate.js";
import { mergeFamilies, renderFamily } from "../exposition/rendered-family.js";
import { writeDelimitedProtobuf } from "../exposition/write-protobuf.js";
import { formatProtobufText } from "../exposition/write-protobuf-text.js";
import { type GatewayContext, type GatewayRequest, type GatewayResponse, textError } from "./responses.js";

/**
 * `GET` on the telemetry path: the gateway's own families and every group's, merged by name, in the format the
 * `Accept` header negotiates (promhttp with `expfmt.Negotiate`), gzip-compressed when the client accepts it.
 */
export async function scrape(req: GatewayRequest, ctx: GatewayContext): Promise<GatewayResponse> {
  // Only an unchecked store can be inconsistent; promhttp then answers 500 (its default
  // ErrorHandling, HTTPErrorOnError).
  const problem = ctx.check ? undefined : ctx.store.inconsistency();
  if (problem !== undefined) {
    return textError(500, `An error has occurred while serving metrics:\n\n${problem}`);
  }
  // The gateway's own families come first and keep their HELP and TYPE; pushed series of the same name join them.
  const own = (await ctx.ownFamilies()).map(renderFamily);
  const merged = mergeFamilies([...own, ...ctx.store.families()]);
  const { format, contentType } = negotiate(req.headers.accept);
  const headers = { "Content-Type": contentType };
  const gzip = gzipAccepted(req.headers["accept-encoding"]) ? { gzip: true as const } : {};
  switch (format) {
    case "text":
      return { status: 200, headers, body: formatText(merged), ...gzip };
    case "protobuf-delimited":
      return { status: 200, headers, body: await writeDelimitedProtobuf(exposedFamilies(merged)), ...gzip };
    default:
      return {
        status: 200,
        headers,
        body: formatProtobufText(exposedFamilies(merged), format === "protobuf-compact-text"),
        ...gzip,
      };
  }
}

/**
 * promhttp's test (client_golang 1.14, as in 1.5.1): an `Accept-Encoding` item that is `gzip` or starts with `gzip;`
 * (a q-value is not read).
 */
function gzipAccepted(header: string | undefined): boolean {
  return (header ?? "").split(",").some((part) => {
    const item = part.trim();
    return item === "gzip" || item.startsWith("gzip;");
  });
}
