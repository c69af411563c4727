import { tmpdir } from "node:os";
import { goQuote } from "@local/go-compat/quote";
import { isLosslessNumber } from "lossless-json";
import { decodeGoJson } from "../go/json-decode.js";
import { goParseQuery } from "../go/query.js";
import { decodeGoXml } from "../go/xml.js";
import { type MultipartForm, readFormFile, readMultipartForm, removeFormFiles } from "./multipart-form.js";

/** The outcome of parsing a body: a payload, nothing (unsupported or invalid, only logged), or a multipart failure. */
export interface ParsedBody {
  readonly payload?: Record<string, unknown>;
  /** A message for the log when the body could not be used. */
  readonly logError?: string;
  /** Informational lines upstream logs while reading the body (multipart values found). */
  readonly notes?: readonly string[];
  /** Multipart bodies that fail to parse are a 500 upstream. */
  readonly multipartFailed?: boolean;
  /** The failure was opening a file part (upstream's other 500 text). */
  readonly fileFailed?: boolean;
  /** Removes what reading the body left on disk (multipart file parts past `-max-multipart-mem`). */
  readonly cleanup?: () => Promise<void>;
  /** Multipart bodies are never read raw, so HMAC rules see an empty body (webhook.go hookHandler). */
  readonly rawBodyUnavailable?: boolean;
}

/**
 * Parses a request body by content type the way upstream picks a parser: by substring, in the order `json`,
 * `x-www-form-urlencoded`, `xml`, then the `multipart/form-data;` prefix (webhook.go hookHandler). JSON numbers keep
 * their source text; XML becomes mxj's shape (attributes `-name`, text `#text`, all values strings). Multipart file
 * parts are read only when sent as `application/json` or named in `options.jsonParts` (payload
 * `parse-parameters-as-json`).
 */
export async function parseBody(
  contentType: string,
  body: Buffer,
  options: MultipartOptions = { jsonParts: [] },
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
  if (contentType.startsWith("multipart/form-data;")) return parseMultipartBody(body, options);
  return { logError: `error parsing body payload due to unsupported content type header: ${contentType}` };
}

/** What reading a multipart body needs besides the body. */
export interface MultipartOptions {
  /** Names of file parts to decode as JSON whatever their type (`parse-parameters-as-json` with source payload). */
  readonly jsonParts: readonly string[];
  /** The request's own `Content-Type` (net/http reads the boundary from it, not from the hook's override). */
  readonly requestContentType?: string;
  /** The request's query string: net/http's `ParseMultipartForm` fails on a query `ParseQuery` refuses. */
  readonly query?: string;
  /** `-max-multipart-mem`. */
  readonly maxMemory?: number;
  /** Where file parts past `maxMemory` are written. */
  readonly tempDir?: string;
}

/**
 * Upstream's multipart branch (webhook.go): `ParseMultipartForm`, then the first value of each form value, then the
 * first file of each name that is sent as `application/json` (any of its Content-Type headers) or named in
 * `jsonParts`, decoded as one JSON object (null when it is not one). Any form error is upstream's 500.
 */
async function parseMultipartBody(body: Buffer, options: MultipartOptions): Promise<ParsedBody> {
  let form: MultipartForm;
  try {
    form = await readMultipartForm(body, {
      contentType: options.requestContentType ?? "",
      maxMemory: options.maxMemory ?? DEFAULT_MAX_MEMORY,
      tempDir: options.tempDir ?? tmpdir(),
    });
  } catch (error) {
    return {
      multipartFailed: true,
      rawBodyUnavailable: true,
      logError: `error parsing multipart form: ${(error as Error).message}`,
    };
  }
  const cleanup = () => removeFormFiles(form);
  // ParseMultipartForm runs ParseForm first and returns its error only after reading the whole form.
  const queryError = goParseQuery(options.query ?? "").error;
  if (queryError !== undefined) {
    return {
      multipartFailed: true,
      rawBodyUnavailable: true,
      cleanup,
      logError: `error parsing multipart form: ${queryError}`,
    };
  }
  // Upstream makes the payload map only when it stores a value or a JSON file: a form with neither has no payload
  // (`entire-payload` is `null`, as for an unsupported body).
  let payload: Record<string, unknown> | undefined;
  const notes: string[] = [];
  for (const [name, values] of form.values) {
    notes.push(`found multipart form value ${goQuote(name)}`);
    payload ??= Object.create(null) as Record<string, unknown>;
    payload[name] = values[0];
  }
  for (const [name, files] of form.files) {
    const file = files[0];
    if (file === undefined) continue;
    const asJson =
      options.jsonParts.includes(name) ||
      (file.header.get("Content-Type") ?? []).includes("application/json");
    if (!asJson) continue;
    notes.push(`parsing multipart form file ${goQuote(name)} as JSON`);
    let text: string;
    try {
      text = (await readFormFile(file)).toString("utf8");
    } catch (error) {
      return {
        multipartFailed: true,
        fileFailed: true,
        rawBodyUnavailable: true,
        cleanup,
        logError: `error parsing multipart form file: ${(error as Error).message}`,
      };
    }
    const decoded = decodeGoJsonObject(text);
    if ("error" in decoded) notes.push(`error parsing JSON payload file: ${decoded.error}`);
    payload ??= Object.create(null) as Record<string, unknown>;
    payload[name] = "error" in decoded ? null : decoded.value;
  }
  return { ...(payload === undefined ? {} : { payload }), notes, rawBodyUnavailable: true, cleanup };
}

const DEFAULT_MAX_MEMORY = 1 << 20;

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
