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
  // Go reads Transfer-Encoding only from HTTP/1.1 on, where anything but a lone `chunked` was refused already.
  const chunked = req.httpVersion !== "1.0" && rawValue(req.rawHeaders, "transfer-encoding") !== undefined;
  if (chunked) lines.push("Transfer-Encoding: chunked");
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
  let body = req.body;
  // DumpRequest writes a chunked body chunked again: all of it as one chunk, then the last chunk and a blank line.
  if (chunked)
    body =
      body.length === 0
        ? Buffer.from("0\r\n\r\n")
        : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]);
  return [...lines, ...scanLines(body)].map((l) => `> [${rid}] ${l}\n`).join("");
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
    const body = typeof res.body === "string" ? Buffer.from(res.body) : res.body;
    for (const line of scanLines(body)) out += `< [${rid}] ${line}\n`;
  }
  return out;
}

/** bufio.MaxScanTokenSize: a Scanner stops (ErrTooLong, which the dumper ignores) at a longer line. */
const MAX_SCAN_TOKEN = 64 * 1024;

/**
 * A `bufio.Scanner` with `ScanLines` over the bytes, as the dumper runs it: split at `\n`, one trailing `\r`
 * dropped, no empty last line, and nothing from the first line of 64 KiB or more on.
 */
export function scanLines(bytes: Buffer): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    const lf = bytes.indexOf(0x0a, start);
    const end = lf < 0 ? bytes.length : lf;
    if (end - start >= MAX_SCAN_TOKEN) break;
    const cut = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    lines.push(bytes.toString("utf8", start, cut));
    start = end + 1;
  }
  return lines;
}

function rawValue(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
}
