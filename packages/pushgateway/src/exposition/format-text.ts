import { isLegacyMetricName, quoteName } from "./metric-names.js";
import { expositionOrder, type RenderedFamily } from "./rendered-family.js";

/** A family's name in HELP and TYPE lines: quoted when outside the classic set (expfmt text_create.go `writeName`). */
function name(f: RenderedFamily): string {
  return f.utf8 ? (isLegacyMetricName(f.name) ? f.name : quoteName(f.name)) : f.name;
}

/**
 * Writes families in the text format as client_golang does: families sorted by name, series by number of labels and
 * then label values in label-name order (their `seriesKey`), `# HELP` only when set (client_golang expfmt
 * text_create.go). Yields chunks of about 64 KiB so a 100k-series scrape is streamed instead of built as one string.
 */
export function* formatText(families: readonly RenderedFamily[]): Generator<string> {
  // Lines gathered in an array and joined once per chunk: appending each line to a string built a rope that writing
  // it then had to flatten, several times the cost of the join (bench/pushgateway/README.md).
  let batch: string[] = [];
  let length = 0;
  for (const { family: f, order } of expositionOrder(families)) {
    if (f.help !== undefined)
      batch.push(`# HELP ${name(f)} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
    batch.push(`# TYPE ${name(f)} ${f.type}`);
    const { lines } = f;
    for (const i of order) {
      const line = lines.at(i) as string;
      batch.push(line);
      length += line.length + 1;
      if (length >= 65536) {
        batch.push("");
        yield batch.join("\n");
        batch = [];
        length = 0;
      }
    }
  }
  if (batch.length > 0) {
    batch.push("");
    yield batch.join("\n");
  }
}
