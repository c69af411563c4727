import { goStatusText } from "../go/status-text.js";
import { canonicalHeaderKey } from "../request/request-values.js";

/** The request as `-debug` dumps it. */
export interface DumpedRequest {
  readonly method: string;
  readonly url: string;
  readonly httpVersion: string;
  /** Node's `rawHeaders`: name, value, name, value… */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

/**
 * Upstream's `-debug` request dump (internal/middleware/dumper.go over `httputil.DumpRequest`): the request line,
 * `Host`, the other headers sorted by canonical name, a blank line, then the body, each line prefixed `> [rid] `.
 */
export function dumpRequest(req: DumpedRequest, rid: string): string {
  const headers = new Map<string, string[]>();
  let host = "";
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = canonicalHeaderKey(req.rawHeaders[i] as string);
    const value = req.rawHeaders[i + 1] as string;
    if (name === "Host") host = value;
    // Go keeps Transfer-Encoding out of the header map; DumpRequest writes it on its own line.
    else if (name !== "Transfer-Encoding" && name !== "Trailer")
      headers.set(name, [...(headers.get(name) ?? []), value]);
  }
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`, `Host: ${host}`];
  const tokens = (name: string) =>
    (headers.get(name) ?? []).flatMap((v) => v.split(",")).map((t) => t.trim().toLowerCase());
  const transferEncoding = rawValue(req.rawHeaders, "transfer-encoding");
  if (transferEncoding !== undefined) lines.push(`Transfer-Encoding: ${transferEncoding}`);
  // DumpRequest adds "Connection: close" when the request asks to close, on top of the header itself (so Go
  // shows it twice); HTTP/1.0 closes unless it asks to keep alive (net/http shouldClose).
  const closing =
    req.httpVersion === "1.0"
      ? !tokens("Connection").includes("keep-alive")
      : tokens("Connection").includes("close");
  if (closing) lines.push("Connection: close");
  for (const name of [...headers.keys()].sort())
    for (const v of headers.get(name) ?? []) lines.push(`${name}: ${v}`);
  lines.push("");
  if (req.body.length > 0) lines.push(...splitLines(req.body.toString("utf8")));
  return lines.map((l) => `> [${rid}] ${l}\n`).join("");
}

/**
 * Upstream's `-debug` response dump: the status as written (Go prints `0` when the handler never called
 * `WriteHeader`, i.e. for an implicit 200), the headers set by the handler, sorted, then the body.
 */
export function dumpResponse(
  res: { status: number; headers: readonly (readonly [string, string])[]; body: string | Buffer },
  rid: string,
): string {
  const status = res.status === 200 ? "0 " : `${res.status} ${goStatusText(res.status)}`;
  let out = `< [${rid}] ${status}\n`;
  const headers = new Map<string, string[]>();
  for (const [k, v] of res.headers) {
    const name = canonicalHeaderKey(k);
    headers.set(name, [...(headers.get(name) ?? []), v]);
  }
  for (const name of [...headers.keys()].sort())
    out += `< [${rid}] ${name}: ${headers.get(name)?.join(", ")}\n`;
  if (res.body.length > 0) {
    out += `< [${rid}]\n`;
    for (const line of splitLines(res.body.toString())) out += `< [${rid}] ${line}\n`;
  }
  return out;
}

/** Go's `bufio.ScanLines`: split at `\n`, drop one trailing `\r`, no empty last line. */
function splitLines(text: string): string[] {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function rawValue(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
}
