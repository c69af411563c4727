/** Report v1 as the properties below read it. */
export interface Report {
  status: { status: string; extended_status: string; boot_status_code: string };
  errors: { message: string }[];
  recoverable_errors: { level: string; messages: string[] }[];
}

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

/**
 * What `--format prometheus` must hold for any parser (text format 0.0.4): HELP and TYPE at most once per family
 * and before its samples, every sample line `name{label="escaped"...} value`, no series twice. Returns the
 * problems found and the samples (labels unescaped) for comparing with what a Pushgateway serves back.
 */
export function checkExposition(text: string): {
  problems: string[];
  samples: { name: string; labels: Record<string, string>; value: number }[];
} {
  const problems: string[] = [];
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  const seen = new Set<string>();
  const series = new Set<string>();
  if (!text.endsWith("\n")) problems.push("no final line feed");
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta !== null) {
      const key = `${meta[1]} ${meta[2]}`;
      if (seen.has(key)) problems.push(`${key} twice`);
      if (samples.some((s) => s.name === meta[2])) problems.push(`${key} after its samples`);
      seen.add(key);
      continue;
    }
    const sample =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+)$/.exec(line);
    if (sample === null) {
      problems.push(`not a sample line: ${JSON.stringify(line)}`);
      continue;
    }
    const labels: Record<string, string> = Object.create(null);
    for (const m of (sample[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g))
      labels[m[1] as string] = unescapeLabel(m[2] as string);
    const id = `${sample[1]}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(id)) problems.push(`series twice: ${line}`);
    series.add(id);
    const value = Number(sample[3]);
    if (Number.isNaN(value) && sample[3] !== "NaN") problems.push(`not a value: ${line}`);
    samples.push({ name: sample[1] as string, labels, value });
  }
  return { problems, samples };
}

/** The samples report v1 stands for (README "--format prometheus"), without the last-update time. */
export function expectedSamples(
  report: Report,
): { name: string; labels: Record<string, string>; value: number }[] {
  const { status, extended_status, boot_status_code } = report.status;
  return [
    { name: "bootstatus_info", labels: { status, extended_status, boot_status_code }, value: 1 },
    { name: "bootstatus_errors", labels: {}, value: report.errors.length },
    ...report.recoverable_errors.map((r) => ({
      name: "bootstatus_recoverable_errors",
      labels: { level: r.level },
      value: r.messages.length,
    })),
  ];
}

/** A Pushgateway's `/api/v1/metrics` answer (1.5+): groups with their labels and metric families. */
export interface PushgatewayGroups {
  data: {
    labels: Record<string, string>;
    [family: string]: unknown;
  }[];
}

/**
 * The samples one group of a Pushgateway's `/api/v1/metrics` holds, without the grouping labels and without an
 * empty label (an empty label value is no label in Prometheus's data model).
 */
export function groupSamples(
  api: PushgatewayGroups,
  group: Record<string, string>,
): { name: string; labels: Record<string, string>; value: number }[] | undefined {
  const found = api.data.find(
    (g) =>
      Object.entries(group).every(([k, v]) => g.labels[k] === v) &&
      Object.keys(g.labels).length === Object.keys(group).length,
  );
  if (found === undefined) return undefined;
  const out: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const [key, family] of Object.entries(found)) {
    if (key === "labels" || key.startsWith("push_") || typeof family !== "object" || family === null)
      continue;
    const metrics =
      (family as { metrics?: { labels?: Record<string, string>; value?: string }[] }).metrics ?? [];
    for (const m of metrics) {
      const labels: Record<string, string> = Object.create(null);
      for (const [k, v] of Object.entries(m.labels ?? {})) if (!(k in group) && v !== "") labels[k] = v;
      out.push({ name: key, labels, value: Number(m.value) });
    }
  }
  return out;
}

/** Samples in one comparable order, empty label values dropped (Prometheus's data model). */
export function normalized(
  samples: { name: string; labels: Record<string, string>; value: number }[],
): string[] {
  return samples
    .map((s) =>
      JSON.stringify([
        s.name,
        Object.entries(s.labels)
          .filter(([, v]) => v !== "")
          // Written as UTF-8, a lone surrogate is U+FFFD (as everywhere bootstatus prints).
          .map(([k, v]): [string, string] => [k, Buffer.from(v, "utf8").toString("utf8")])
          .sort(([a], [b]) => (a < b ? -1 : 1)),
        s.value,
      ]),
    )
    .sort();
}
