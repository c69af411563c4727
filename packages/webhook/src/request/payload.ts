import { isLosslessNumber } from "lossless-json";
import { decodeGoJson } from "../go/json-decode.js";
import { goParseQuery } from "../go/query.js";
import { decodeGoXml } from "../go/xml.js";

/** The outcome of parsing a body: a payload, nothing (unsupported or invalid, only logged), or a multipart failure. */
export interface ParsedBody {
  readonly payload?: Record<string, unknown>;
  /** A message for the log when the body could not be used. */
  readonly logError?: string;
  /** Informational lines upstream logs while reading the body (multipart values found). */
  readonly notes?: readonly string[];
  /** Multipart bodies that fail to parse are a 500 upstream. */
  readonly multipartFailed?: boolean;
  /** Multipart bodies are never read raw, so HMAC rules see an empty body (research §6). */
  readonly rawBodyUnavailable?: boolean;
}

/**
 * Parses a request body by content type the way upstream picks a parser: by substring, in the order `json`,
 * `x-www-form-urlencoded`, `xml`, then the `multipart/form-data;` prefix (research §6). JSON numbers keep their
 * source text; XML becomes mxj's shape (attributes `-name`, text `#text`, all values strings). Multipart file parts
 * are read only when sent as `application/json` or named in `options.jsonParts` (payload `parse-parameters-as-json`).
 */
export async function parseBody(
  contentType: string,
  body: Buffer,
  options: { jsonParts: readonly string[] } = { jsonParts: [] },
): Promise<ParsedBody> {
  if (contentType.includes("json")) {
    const text = body.toString("utf8");
    const decoded = decodeGoJson(text);
    if ("error" in decoded) return { logError: `error parsing JSON payload ${decoded.error}` };
    if (text.trimStart().startsWith("[")) return { payload: { root: decoded.value } };
    if (!isJsonObject(decoded.value)) {
      return { logError: `error parsing JSON payload ${unmarshalError(decoded.value)}` };
    }
    return { payload: decoded.value };
  }
  if (contentType.includes("x-www-form-urlencoded")) {
    // An invalid pair drops the whole form, as upstream's url.ParseQuery error does.
    const form = goParseQuery(body.toString("utf8"));
    if (form.error !== undefined) return { logError: `error parsing form payload ${form.error}` };
    return { payload: form.values };
  }
  if (contentType.includes("xml")) {
    const decoded = decodeGoXml(body.toString("utf8"));
    if ("error" in decoded) return { logError: `error parsing XML payload: ${decoded.error}` };
    return { payload: decoded.value };
  }
  if (contentType.startsWith("multipart/form-data;")) {
    try {
      const form = await new Response(body, { headers: { "content-type": contentType } }).formData();
      const payload: Record<string, unknown> = {};
      const notes: string[] = [];
      for (const [name, value] of form) {
        if (name in payload) continue;
        if (typeof value === "string") {
          notes.push(`found multipart form value ${JSON.stringify(name)}`);
          payload[name] = value;
        } else if (value.type === "application/json" || options.jsonParts.includes(name)) {
          notes.push(`parsing multipart form file ${JSON.stringify(name)} as JSON`);
          const decoded = decodeGoJsonObject(await value.text());
          if ("error" in decoded) notes.push(`error parsing JSON payload file: ${decoded.error}`);
          payload[name] = "error" in decoded ? null : decoded.value;
        }
      }
      return { payload, notes, rawBodyUnavailable: true };
    } catch {
      return { multipartFailed: true, rawBodyUnavailable: true };
    }
  }
  return { logError: `error parsing body payload due to unsupported content type header: ${contentType}` };
}

/** Go's `json.Unmarshal` into a `map[string]interface{}`: a JSON object, or the error for anything else. */
export function decodeGoJsonObject(
  text: string,
): { readonly value: Record<string, unknown> } | { readonly error: string } {
  const decoded = decodeGoJson(text);
  if ("error" in decoded) return decoded;
  return isJsonObject(decoded.value) ? { value: decoded.value } : { error: unmarshalError(decoded.value) };
}

/** A decoded JSON object (what Go can decode into `map[string]interface{}`). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/** Go's `json: cannot unmarshal <kind> into Go value of type map[string]interface {}`. */
function unmarshalError(value: unknown): string {
  const kind =
    value === null
      ? "null"
      : Array.isArray(value)
        ? "array"
        : isLosslessNumber(value)
          ? "number"
          : typeof value === "boolean"
            ? "bool"
            : "string";
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
