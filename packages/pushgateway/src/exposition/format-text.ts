import { expositionOrder, type RenderedFamily } from "./rendered-family.js";

/**
 * The text exposition content type (format 0.0.4) as current upstream sends it: prometheus/common ≥ 0.60 (expfmt
 * `NegotiateAccept`) appends the name escaping scheme, `underscores` unless the Accept header asks for another known
 * one. Debian's 1.5.1 predates this and sends the type without the parameter.
 */
export function textContentType(accept: string | undefined): string {
  const asked = /(?:^|[;,\s])escaping=([a-z0-9-]+)/i.exec(accept ?? "")?.[1];
  const scheme = asked !== undefined && ESCAPING.has(asked) ? asked : "underscores";
  return `text/plain; version=0.0.4; charset=utf-8; escaping=${scheme}`;
}

const ESCAPING = new Set(["allow-utf-8", "underscores", "dots", "values"]);

/**
 * Writes families in the text format as client_golang does: families sorted by name, series by number of labels and
 * then label values in label-name order (their `seriesKey`), `# HELP` only when set (client_golang expfmt
 * text_create.go). Yields chunks of
 * about 64 KiB so a 100k-series scrape is streamed instead of built as one string.
 */
export function* formatText(families: readonly RenderedFamily[]): Generator<string> {
  let chunk = "";
  for (const { family: f, order } of expositionOrder(families)) {
    if (f.help !== undefined)
      chunk += `# HELP ${f.name} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n`;
    chunk += `# TYPE ${f.name} ${f.type}\n`;
    for (const i of order) {
      chunk += `${f.lines[i]}\n`;
      if (chunk.length >= 65536) {
        yield chunk;
        chunk = "";
      }
    }
  }
  if (chunk !== "") yield chunk;
}
