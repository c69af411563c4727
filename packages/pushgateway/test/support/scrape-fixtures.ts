// The pushes and helpers the protobuf scrape tests share (protobuf-scrape.test.ts for ours alone,
// protobuf-scrape.peers.test.ts beside 1.5.1).
import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import protobuf from "protobufjs";
import { metricFamilyType } from "./metric-family-type.js";

export const MF = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily";
export const DELIMITED = `${MF};encoding=delimited`;
export const OWN = /^(go|process|pushgateway)_/;

const familyType = metricFamilyType;

export interface Side {
  child: ChildProcess;
  base: string;
}

export interface Answer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

export function send(
  side: Side,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<Answer> {
  const url = new URL(`${side.base}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method, agent: false, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers["content-type"],
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The varint-delimited messages of a body, as raw bytes. */
export function splitDelimited(body: Buffer): Buffer[] {
  const reader = protobuf.Reader.create(body);
  const out: Buffer[] = [];
  while (reader.pos < reader.len) {
    const length = reader.uint32();
    out.push(body.subarray(reader.pos, reader.pos + length));
    reader.skip(length);
  }
  return out;
}

export interface Decoded {
  name: string;
  metric?: {
    gauge?: { value: number };
    histogram?: { bucket?: unknown[] };
    label?: { name: string; value: string }[];
  }[];
  [field: string]: unknown;
}

export function decode(message: Buffer): Decoded {
  return familyType.toObject(familyType.decode(message), {
    longs: Number,
    enums: String,
    defaults: false,
  }) as Decoded;
}

export const isPushTime = (name: string) =>
  name === "push_time_seconds" || name === "push_failure_time_seconds";

/** Decoded families without our own, push times other than 0 masked (they differ by when each side was pushed). */
export function comparable(body: Buffer): Decoded[] {
  return splitDelimited(body)
    .map(decode)
    .filter((f) => !OWN.test(f.name))
    .map((f) => {
      if (!isPushTime(f.name)) return f;
      for (const m of f.metric ?? []) if (m.gauge && m.gauge.value !== 0) m.gauge.value = -1;
      return f;
    });
}

/** Text or compact-text bodies without our own families, push times other than 0 masked. */
export function comparableText(body: Buffer, compact: boolean): string {
  const text = body.toString("utf8");
  const families = compact ? text.split("\n") : text.split("\n\n");
  return families
    .filter((f) => !/^name: ?"(go|process|pushgateway)_/.test(f))
    .join(compact ? "\n" : "\n\n")
    .replace(/(value: ?)\d\.\d+e\+09/g, "$1<time>");
}

export const PUSHES: { path: string; body: string | Buffer; headers?: Record<string, string> }[] = [
  {
    path: "/metrics/job/j1/instance/i1",
    body: [
      "# HELP g a gauge",
      "# TYPE g gauge",
      'g{a="x"} 1.5',
      'g{a="y",b="z"} 2',
      "g 3",
      "# TYPE c counter",
      "c 10",
      'u{q="w"} 7',
      "# HELP s a summary",
      "# TYPE s summary",
      's{quantile="0.5"} 1',
      's{quantile="0.9"} 2',
      "s_sum 3",
      "s_count 4",
      "# TYPE h histogram",
      'h_bucket{le="1"} 1',
      'h_bucket{le="2"} 2',
      'h_bucket{le="+Inf"} 4',
      "h_sum 3",
      "h_count 4",
      "",
    ].join("\n"),
  },
  // The same HELP as j1's: where groups differ, Go's map order picks the one the scrape shows.
  { path: "/metrics/job/j2", body: '# HELP g a gauge\n# TYPE g gauge\ng{a="x"} 9\n' },
  {
    path: "/metrics/job/j3",
    body: [
      "# TYPE h2 histogram",
      'h2_bucket{le="1"} 1',
      'h2_bucket{le="+Inf"} 2',
      "h2_sum NaN",
      "h2_count 2",
      "# HELP sp weird \\\\ help \\n é",
      'sp{l="a\\nb\\"c\\\\ é\tt"} -Inf',
      "big 1e21",
      "small 1e-5",
      "mid 123456.5",
      "neg -0.25",
      "",
    ].join("\n"),
  },
  {
    path: "/metrics/job@base64/cGI/zone/eu",
    headers: { "Content-Type": `${DELIMITED}` },
    body: Buffer.from(
      familyType
        .encodeDelimited(
          familyType.fromObject({
            name: "pb_gauge",
            help: "From protobuf.",
            type: "GAUGE",
            metric: [
              { label: [{ name: "k", value: "v2" }], gauge: { value: 2 } },
              { label: [{ name: "k", value: "v1" }], gauge: { value: 1 } },
            ],
          }),
        )
        .finish(),
    ),
  },
];
