import { exposedFamilies } from "../exposition/exposed-families.js";
import { formatText } from "../exposition/format-text.js";
import { negotiate } from "../exposition/negotiate.js";
import { escapedFamily, mergeFamilies, renderFamily } from "../exposition/rendered-family.js";
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
  const { format, contentType, escaping } = negotiate(req.headers.accept);
  // Names outside the classic set (only with --push.enable-utf8-names) are escaped as the scraper asked.
  const merged = mergeFamilies([...own, ...ctx.store.families()]).map((f) => escapedFamily(f, escaping));
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
 * Whether to gzip a scrape, as promhttp (client_golang 1.23, upstream 1.11) negotiates `Accept-Encoding` with
 * golang/gddo's `NegotiateContentEncoding`: each offer in order (identity, gzip) takes the first spec naming it or
 * `*` whose q beats the best so far; a best q of 0 falls back to identity. promhttp also offers zstd, which Node 20's
 * zlib cannot write, so a zstd-only client gets identity, as promhttp answers an encoding it cannot agree on.
 */
export function gzipAccepted(header: string | undefined): boolean {
  const specs = parseAcceptEncoding(header ?? "");
  let best = "identity";
  let bestQ = -1;
  for (const offer of ["identity", "gzip"]) {
    for (const spec of specs) {
      if (spec.q > bestQ && (spec.value === "*" || spec.value === offer)) {
        bestQ = spec.q;
        best = offer;
      }
    }
  }
  return best === "gzip" && bestQ > 0;
}

/**
 * gddo's `header.ParseAccept`: `token[;q=value]` items split by commas; an item it cannot read ends the list (a q
 * parameter other than `q`, a q not starting with 0 or 1). q is read as gddo's `expectQuality` does (`0.5`, `1`,
 * `0.` digits without a limit).
 */
function parseAcceptEncoding(header: string): { value: string; q: number }[] {
  const specs: { value: string; q: number }[] = [];
  // Sticky expressions read at `at`, so a long header is walked once, never copied.
  const space = /[ \t]*/y;
  const token = /[!#$%&'*+\-.^_`|~0-9A-Za-z/]+/y;
  const quality = /q=([01])(?:\.([0-9]*))?/y;
  let at = 0;
  const skip = (re: RegExp): string | undefined => {
    re.lastIndex = at;
    const m = re.exec(header);
    if (m === null) return undefined;
    at = re.lastIndex;
    return m[0];
  };
  for (;;) {
    const value = skip(token);
    if (value === undefined) return specs;
    let q = 1;
    skip(space);
    if (header[at] === ";") {
      at++;
      skip(space);
      quality.lastIndex = at;
      const m = quality.exec(header);
      if (m === null) return specs;
      at = quality.lastIndex;
      const digits = m[2] ?? "";
      q = Number(m[1]) + (digits === "" ? 0 : Number(digits) / 10 ** digits.length);
    }
    specs.push({ value, q });
    skip(space);
    if (header[at] !== ",") return specs;
    at++;
    skip(space);
  }
}
