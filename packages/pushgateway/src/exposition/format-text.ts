import { isLegacyMetricName, quoteName } from "./metric-names.js";
import { expositionOrder, type RenderedFamily } from "./rendered-family.js";

/**
 * Writes families in the text format as client_golang does: families sorted by name, series by number of labels and
 * then label values in label-name order (their `seriesKey`), `# HELP` only when set (client_golang expfmt
 * text_create.go). Yields chunks of
 * about 64 KiB so a 100k-series scrape is streamed instead of built as one string.
 */
/** A family's name in HELP and TYPE lines: quoted when outside the classic set (expfmt text_create.go `writeName`). */
function name(f: RenderedFamily): string {
  return f.utf8 ? (isLegacyMetricName(f.name) ? f.name : quoteName(f.name)) : f.name;
}

export function* formatText(families: readonly RenderedFamily[]): Generator<string> {
  let chunk = "";
  for (const { family: f, order } of expositionOrder(families)) {
    if (f.help !== undefined)
      chunk += `# HELP ${name(f)} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n`;
    chunk += `# TYPE ${name(f)} ${f.type}\n`;
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
