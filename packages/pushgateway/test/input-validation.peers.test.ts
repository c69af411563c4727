// What a push may contain, ours beside Debian's prometheus-pushgateway 1.5.1: each row is sent to both, and the
// status, the message (masked as in peer-parity) and then the whole scrape must agree; where 1.5.1 refuses, ours'
// scrape must also be what it was before the push (a refused push changes nothing but the failure time). The rows come
// from upstream's own tests where they exist, cited per row:
//   common  = prometheus/common expfmt/text_parse_test.go (testTextParseError, testTextParse), as vendored by 1.5.1
//   handler = prometheus/pushgateway handler/handler_test.go (TestPush, TestSplitLabels)
//   storage = prometheus/pushgateway storage/diskmetricstore_test.go (TestAddDeletePersistRestore, checkConsistency)
//   brief   = inputs named in our own review of 1.5.1 where upstream has no test
//   fuzz    = differences test/push-fuzz.peers.test.ts found, fixed in ours
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { metricFamilyType } from "./support/metric-family-type.js";
import {
  type Answer,
  BARRIER,
  normalizeBody,
  normalizeExposition,
  type Side,
  type Step,
  send,
} from "./support/peer-compare.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";

const PB = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

/** Varint-delimited `MetricFamily` messages, as client_golang's push sends them. */
const pb = (...families: Record<string, unknown>[]): Buffer =>
  Buffer.concat(
    families.map((f) =>
      Buffer.from(metricFamilyType.encodeDelimited(metricFamilyType.fromObject(f)).finish()),
    ),
  );
const put = (path: string, body: string | Buffer): Step => ({ method: "PUT", path, body });
const putPb = (path: string, ...families: Record<string, unknown>[]): Step => ({
  method: "PUT",
  path,
  body: pb(...families),
  headers: { "Content-Type": PB },
});
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
const lp = (name: string, value: string) => ({ name, value });
const gauge = (value: number, label: { name: string; value: string }[] = []) => ({ label, gauge: { value } });

/**
 * One case: where it comes from, the steps (the last is the push under test; earlier ones set the store up), and the
 * peer's status for the last step, pinned so that a change in how the request is built cannot hide the case.
 */
interface Row {
  readonly name: string;
  readonly source: string;
  readonly steps: readonly Step[];
  readonly peer: number;
  /** Ours answers otherwise on purpose: its status and why (the scrape is then not compared). */
  readonly ours?: { readonly status: number; readonly why: string };
}

const J = "/metrics/job/v";
const LONG = "x".repeat(1 << 20);

// biome-ignore format: one row per case, as in upstream's tables
const ROWS: readonly Row[] = [
  // --- the text parser (common testTextParseError, numbered as there)
  { name: "no newline at the end", source: "common #0", steps: [put(J, "\nbla 3.14\nblubber 42")], peer: 400 },
  { name: "invalid escape in a label value", source: "common #1", steps: [put(J, 'metric{label="\\t"} 3.14\n')], peer: 400 },
  { name: "newline in a label value", source: "common #2", steps: [put(J, '\nmetric{label="new\nline"} 3.14\n')], peer: 400 },
  { name: "label name @", source: "common #3", steps: [put(J, 'metric{@="bla"} 3.14\n')], peer: 400 },
  { name: "label name __name__", source: "common #4", steps: [put(J, 'metric{__name__="bla"} 3.14\n')], peer: 400 },
  { name: "label name followed by +", source: "common #5", steps: [put(J, 'metric{label+="bla"} 3.14\n')], peer: 400 },
  { name: "unquoted label value", source: "common #6", steps: [put(J, "metric{label=bla} 3.14\n")], peer: 400 },
  { name: "quantile not a float", source: "common #7", steps: [put(J, '# TYPE metric summary\nmetric{quantile="bla"} 3.14\n')], peer: 400 },
  { name: "junk after a label value", source: "common #8", steps: [put(J, 'metric{label="bla"+} 3.14\n')], peer: 400 },
  { name: "float timestamp", source: "common #9", steps: [put(J, 'metric{label="bla"} 3.14 2.72\n')], peer: 400 },
  { name: "string after the timestamp", source: "common #10", steps: [put(J, 'metric{label="bla"} 3.14 2 3\n')], peer: 400 },
  { name: "value not a float", source: "common #11", steps: [put(J, 'metric{label="bla"} blubb\n')], peer: 400 },
  { name: "second HELP", source: "common #12", steps: [put(J, "\n# HELP metric one\n# HELP metric two\n")], peer: 400 },
  { name: "second TYPE", source: "common #13", steps: [put(J, "\n# TYPE metric counter\n# TYPE metric untyped\n")], peer: 400 },
  { name: "TYPE after samples", source: "common #14", steps: [put(J, "\nmetric 4.12\n# TYPE metric counter\n")], peer: 400 },
  { name: "unknown TYPE", source: "common #14 (second)", steps: [put(J, "\n# TYPE metric bla\n")], peer: 400 },
  { name: "invalid metric name in TYPE", source: "common #15", steps: [put(J, "\n# TYPE met-ric\n")], peer: 400 },
  { name: "metric name @invalidmetric", source: "common #16", steps: [put(J, '@invalidmetric{label="bla"} 3.14 2\n')], peer: 400 },
  { name: "no metric name", source: "common #17", steps: [put(J, '{label="bla"} 3.14 2\n')], peer: 400 },
  { name: "le not a float", source: "common #18", steps: [put(J, '# TYPE metric histogram\nmetric_bucket{le="bla"} 3.14\n')], peer: 400 },
  // --- valid text the parser's own test accepts (common testTextParse)
  { name: "HELP escapes and odd spacing", source: "common testTextParse #2", steps: [put(J, '# HELP name two-line\\n doc  str\\\\ing\n # HELP  name2  \tdoc str"ing 2\n  #    TYPE    name counter\nname{labelname="val1",basename="basevalue"} NaN\nname {labelname="val2",basename="base\\"v\\\\al\\nue"} 0.23 1234567890\n')], peer: 400 },
  { name: "NaN, +Inf and -Inf values", source: "common testTextParse #3", steps: [put(J, '# TYPE g gauge\ng{a="1"} NaN\ng{a="2"} +Inf\ng{a="3"} -Inf\n# TYPE c counter\nc NaN\n')], peer: 200 },
  { name: "summary with a +Inf quantile and a NaN one", source: "common testTextParse #4", steps: [put(J, '# TYPE s summary\ns{quantile="0.5"} 1\ns{quantile="+Inf"} 2\ns{quantile="NaN"} 3\ns_sum 1\ns_count 2\n')], peer: 200 },
  // --- label names and metric names (text and protobuf)
  { name: "text label name starting with __", source: "brief", steps: [put(J, 'm{__x="1"} 1\n')], peer: 400 },
  { name: "text duplicate label name", source: "brief", steps: [put(J, 'm{a="1",a="2"} 1\n')], peer: 400 },
  { name: "text label name with a colon", source: "brief", steps: [put(J, 'm{a:b="1"} 1\n')], peer: 400 },
  { name: "text metric name with a colon", source: "brief", steps: [put(J, "a:b 1\n")], peer: 200 },
  { name: "protobuf metric name with a dash", source: "brief", steps: [putPb(J, { name: "a-b", type: "GAUGE", metric: [gauge(1)] })], peer: 200, ours: { status: 400, why: "1.5.1 stores it and then serves a line Prometheus cannot parse" } },
  { name: "protobuf metric name starting with a digit", source: "brief", steps: [putPb(J, { name: "1ab", type: "GAUGE", metric: [gauge(1)] })], peer: 200, ours: { status: 400, why: "1.5.1 stores it and then serves a line Prometheus cannot parse" } },
  { name: "protobuf empty metric name", source: "brief", steps: [putPb(J, { name: "", type: "GAUGE", metric: [gauge(1)] })], peer: 200, ours: { status: 400, why: "1.5.1 stores it and logs an error on every scrape" } },
  { name: "protobuf label name with a dash", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("a-b", "x")])] })], peer: 400 },
  { name: "protobuf label name starting with a digit", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("1a", "x")])] })], peer: 400 },
  { name: "protobuf empty label name", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("", "x")])] })], peer: 400 },
  { name: "protobuf label name __name__", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("__name__", "x")])] })], peer: 400 },
  { name: "protobuf label name starting with __", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("__x", "x")])] })], peer: 400 },
  { name: "protobuf label with an empty value", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("a", "")])] })], peer: 200 },
  // --- grouping labels and the body
  { name: "body label conflicting with a grouping label", source: "storage (sanitizeLabels)", steps: [put(`${J}/a/x`, 'm{a="y"} 1\n')], peer: 200 },
  { name: "body instance conflicting with the path's", source: "handler TestPush", steps: [put(`${J}/instance/i`, 'another_metric{instance="testinstance",job="testjob"} 42\n')], peer: 200 },
  { name: "protobuf label conflicting with a grouping label", source: "brief", steps: [putPb(`${J}/a/x`, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("a", "y")])] })], peer: 200 },
  // --- timestamps (storage: pushed metrics must not have timestamps)
  { name: "text timestamp", source: "handler TestPush (a 1\\nb 1 1000)", steps: [put(J, "a 1\nb 1 1000\n")], peer: 400 },
  { name: "text timestamp 0", source: "brief", steps: [put(J, "a 1 0\n")], peer: 400 },
  { name: "protobuf timestamp", source: "brief", steps: [putPb(J, { name: "pm", type: "GAUGE", metric: [{ gauge: { value: 1 }, timestampMs: 1000 }] })], peer: 400 },
  // --- the URL
  { name: "no job", source: "handler TestPush (no job name)", steps: [put("/metrics/job/", "m 1\n")], peer: 307 },
  { name: "empty job via base64", source: "handler TestPush", steps: [put("/metrics/job@base64/=", "m 1\n")], peer: 400 },
  { name: "empty job label in the pairs", source: "brief", steps: [put("/metrics/job/v/job/", "m 1\n")], peer: 200 },
  { name: "base64 job, URL alphabet", source: "handler TestSplitLabels", steps: [put("/metrics/job@base64/dGVzdC9qb2I=", "m 1\n")], peer: 200 },
  { name: "base64 label without padding", source: "handler TestSplitLabels", steps: [put(`${J}/a@base64/YQ`, "m 1\n")], peer: 200 },
  { name: "base64 label, invalid characters", source: "handler TestSplitLabels", steps: [put(`${J}/a@base64/!!`, "m 1\n")], peer: 400 },
  { name: "base64 label, padding in the middle", source: "brief", steps: [put(`${J}/a@base64/YQ==YQ`, "m 1\n")], peer: 400 },
  { name: "base64 label, standard alphabet +/", source: "brief", steps: [put(`${J}/a@base64/${encodeURIComponent("+/8=")}`, "m 1\n")], peer: 400 },
  { name: "empty label value in the URL", source: "handler TestSplitLabels", steps: [put(`${J}/a/`, "m 1\n")], peer: 200 },
  { name: "empty label value via base64", source: "handler TestSplitLabels", steps: [put(`${J}/a@base64/=`, "m 1\n")], peer: 200 },
  { name: "invalid label name in the URL", source: "handler TestSplitLabels", steps: [put(`${J}/a-b/x`, "m 1\n")], peer: 400 },
  { name: "__ label name in the URL", source: "brief", steps: [put(`${J}/__a/x`, "m 1\n")], peer: 400 },
  // --- HELP
  { name: "HELP with invalid UTF-8", source: "brief", steps: [put(J, bytes("# HELP m a", [0xff], "b\nm 1\n"))], peer: 200 },
  { name: "protobuf HELP with invalid UTF-8", source: "brief", steps: [{ ...putPb(J), body: helpWithBytes([0xc3, 0x28]) }], peer: 200 },
  { name: "HELP with an unknown escape", source: "brief", steps: [put(J, "# HELP m a\\qb\nm 1\n")], peer: 400 },
  { name: "label value ending the body", source: "brief", steps: [put(J, 'm{a="x')], peer: 400 },
  { name: "backslash ending a label value's line", source: "brief", steps: [put(J, 'm{a="x\\\n"} 1\n')], peer: 400 },
  { name: "HELP ending the body with a backslash", source: "brief", steps: [put(J, "# HELP m x\\")], peer: 400 },
  { name: "HELP with a trailing backslash", source: "brief", steps: [put(J, "# HELP m ab\\\nm 1\n")], peer: 400 },
  // --- types across groups
  { name: "TYPE differs from another group's", source: "storage (checkConsistency)", steps: [put("/metrics/job/a", "# TYPE m gauge\nm 1\n"), put("/metrics/job/b", "# TYPE m counter\nm 1\n")], peer: 400 },
  { name: "untyped beside typed in another group", source: "storage (checkConsistency)", steps: [put("/metrics/job/a", "# TYPE m gauge\nm 1\n"), put("/metrics/job/b", "m 1\n")], peer: 400 },
  // --- histograms and summaries
  { name: "histogram bucket without le", source: "brief", steps: [put(J, "# TYPE h histogram\nh_bucket 1\nh_count 1\n")], peer: 200 },
  { name: "histogram buckets not monotonic", source: "brief", steps: [put(J, '# TYPE h histogram\nh_bucket{le="1"} 5\nh_bucket{le="2"} 3\nh_bucket{le="+Inf"} 5\nh_count 5\n')], peer: 200 },
  { name: "histogram le NaN", source: "brief", steps: [put(J, '# TYPE h histogram\nh_bucket{le="NaN"} 1\nh_count 1\n')], peer: 200 },
  { name: "histogram count below +Inf", source: "brief", steps: [put(J, '# TYPE h histogram\nh_bucket{le="+Inf"} 5\nh_count 3\n')], peer: 200 },
  { name: "summary quantile above 1", source: "brief", steps: [put(J, '# TYPE s summary\ns{quantile="2"} 1\ns_count 1\n')], peer: 200 },
  { name: "summary quantile below 0", source: "brief", steps: [put(J, '# TYPE s summary\ns{quantile="-1"} 1\ns_count 1\n')], peer: 200 },
  { name: "summary without quantile", source: "brief", steps: [put(J, "# TYPE s summary\ns 1\n")], peer: 200 },
  { name: "gauge with a le label", source: "brief", steps: [put(J, '# TYPE g gauge\ng{le="1"} 1\n')], peer: 200 },
  { name: "protobuf histogram NaN bound", source: "brief", steps: [putPb(J, { name: "ph", type: "HISTOGRAM", metric: [{ histogram: { sampleCount: 1, sampleSum: 1, bucket: [{ upperBound: Number.NaN, cumulativeCount: 1 }] } }] })], peer: 200 },
  { name: "protobuf summary quantile 1.5", source: "brief", steps: [putPb(J, { name: "ps", type: "SUMMARY", metric: [{ summary: { sampleCount: 1, sampleSum: 1, quantile: [{ quantile: 1.5, value: 1 }] } }] })], peer: 200 },
  { name: "protobuf histogram label le", source: "brief", steps: [putPb(J, { name: "ph", type: "HISTOGRAM", metric: [{ label: [lp("le", "1")], histogram: { sampleCount: 1, sampleSum: 1 } }] })], peer: 200 },
  { name: "protobuf summary label quantile", source: "brief", steps: [putPb(J, { name: "ps", type: "SUMMARY", metric: [{ label: [lp("quantile", "1")], summary: { sampleCount: 1, sampleSum: 1 } }] })], peer: 400 },
  // --- values
  { name: "counter with a negative value", source: "brief", steps: [put(J, "# TYPE c counter\nc -1\n")], peer: 200 },
  { name: "value Inf spelled out", source: "brief", steps: [put(J, "m Inf\nn -inf\no nan\n")], peer: 200 },
  { name: "value with hex digits", source: "brief", steps: [put(J, "m 0x10\n")], peer: 400 },
  { name: "value with underscores", source: "brief", steps: [put(J, "m 1_000\n")], peer: 400 },
  // --- protobuf shapes
  { name: "protobuf family without a type, counter value", source: "brief", steps: [putPb(J, { name: "pc", metric: [{ counter: { value: 2 } }] })], peer: 200 },
  { name: "protobuf family without a type, untyped value", source: "brief", steps: [putPb(J, { name: "pc", metric: [{ untyped: { value: 2 } }] })], peer: 400 },
  { name: "protobuf unknown metric type", source: "brief", steps: [putPb(J, { name: "pu", type: 42, metric: [{ untyped: { value: 1 } }] })], peer: 400 },
  { name: "protobuf GAUGE_HISTOGRAM", source: "brief", steps: [putPb(J, { name: "pgh", type: "GAUGE_HISTOGRAM", metric: [{ histogram: { sampleCount: 1, sampleSum: 1, bucket: [{ upperBound: 1, cumulativeCount: 1 }] } }] })], peer: 200, ours: { status: 200, why: "1.5.1 stores it and breaks its family on every scrape; ours exposes it as a histogram" } },
  { name: "protobuf gauge family with a counter value", source: "brief", steps: [putPb(J, { name: "pg", type: "GAUGE", metric: [{ counter: { value: 1 } }] })], peer: 400 },
  { name: "protobuf metric without a value", source: "brief", steps: [putPb(J, { name: "pe", type: "GAUGE", metric: [{}] })], peer: 400 },
  { name: "protobuf family without metrics", source: "brief", steps: [putPb(J, { name: "pn", type: "GAUGE", metric: [] })], peer: 200 },
  // --- size
  { name: "1 MiB label value", source: "brief", steps: [put(J, `m{a="${LONG}"} 1\n`)], peer: 200 },
  { name: "1 MiB metric name", source: "brief", steps: [put(J, `m${LONG} 1\n`)], peer: 200 },
  { name: "1 MiB HELP", source: "brief", steps: [put(J, `# HELP m ${LONG}\nm 1\n`)], peer: 200 },
  // --- found by the fuzzer
  { name: "a pushed push_time_seconds is replaced before the check", source: "fuzz", steps: [put(J, "push_time_seconds 1\npush_time_seconds 2\nm 1\n")], peer: 200 },
  { name: "a type clash with an own family comes before the family's series", source: "fuzz", steps: [putPb(J, { name: "process_open_fds", type: "UNTYPED", metric: [{ label: [lp("__x", "1")], gauge: { value: 1 } }] })], peer: 400 },
  { name: "every error of a push, as client_golang's MultiError", source: "fuzz", steps: [put(J, 'c_total{__x="1"} 1\nc_total 0\nc_total 2\n# TYPE process_open_fds counter\nprocess_open_fds 1\n')], peer: 400 },
  { name: "a type clash with another group among other errors", source: "fuzz", steps: [put("/metrics/job/a", '# TYPE m gauge\nm{x="1"} 1\n'), put("/metrics/job/b", '# TYPE m counter\nm{x="2"} 1\nc{__x="1"} 1\n')], peer: 400 },
  { name: "a series another group holds among other errors", source: "fuzz", steps: [put("/metrics/job/j", 'd{a="x"} 1\n'), put("/metrics/job/j/a/x", 'd 1\nc{__x="1"} 1\n')], peer: 400 },
  { name: "histogram and summary counts stored as Go's uint64", source: "fuzz", steps: [put(J, '# TYPE h histogram\nh_bucket{le="1"} 2.5\nh_bucket{le="3"} NaN\nh_bucket{le="5"} 1e300\nh_count 3.7\n# TYPE s summary\ns_count 1e300\n')], peer: 200 },
  { name: "protobuf grouping label name twice in a series", source: "fuzz", steps: [putPb(`${J}/a/g`, { name: "pm", type: "GAUGE", metric: [gauge(1, [lp("a", "x"), lp("a", "y")])] })], peer: 400 },
  { name: "a summary's _sum pushed as a family of its own by another group", source: "fuzz", steps: [put("/metrics/job/a", '# TYPE s summary\ns{quantile="0.5"} 1\n'), put("/metrics/job/b", "s_sum 1\n")], peer: 400 },
  { name: "a family named like an own summary's _count", source: "fuzz", steps: [put(J, "pushgateway_http_push_duration_seconds_count 1\n")], peer: 400 },
  { name: "protobuf help sent empty", source: "fuzz", steps: [putPb(J, { name: "eh", help: "", type: "GAUGE", metric: [gauge(1)] })], peer: 200 },
  { name: "a blank after the value", source: "fuzz", steps: [put(J, "m 1 \n")], peer: 400 },
  { name: "le on a histogram's _sum line", source: "fuzz", steps: [put(J, '# TYPE h histogram\nh_sum{le="1"} 2\nh_count{le="2"} 3\n')], peer: 200 },
];

/** A protobuf family "ph" whose HELP is these bytes (protobufjs would re-encode a JS string as UTF-8). */
function helpWithBytes(help: number[]): Buffer {
  const body = pb({ name: "ph", type: "GAUGE", metric: [gauge(1)] });
  // Splice field 2 (help) right after the name: tag 0x12, length, bytes; then fix the outer length prefix.
  const inner = body.subarray(1);
  const nameEnd = 2 + (inner[1] ?? 0);
  const spliced = Buffer.concat([
    inner.subarray(0, nameEnd),
    Buffer.from([0x12, help.length, ...help]),
    inner.subarray(nameEnd),
  ]);
  return Buffer.concat([Buffer.from([spliced.length]), spliced]);
}

let peer: Side;
let ours: Side;
before(async () => {
  [peer, ours] = await Promise.all([
    startPeerGateway(["--web.enable-admin-api"]),
    startGateway(["--web.enable-admin-api"]),
  ]);
});
after(stopAll);

/** Every earlier write applied (upstream answers a checked push only after applying it). */
async function barrier(side: Side): Promise<void> {
  assert.equal((await send(side, { method: "POST", path: BARRIER, body: "" })).status, 200);
}
async function scrape(side: Side): Promise<string> {
  await barrier(side);
  return (await send(side, { method: "GET", path: "/metrics" })).body;
}
/**
 * The pushed series of a scrape: a push the store check refuses still records the group's failure time (and a push
 * time of 0 for a new group), as upstream does; those series are left out.
 */
const pushedSeries = (exposition: string) =>
  normalizeExposition(exposition)
    .split("\n")
    .filter((l) => !/^(# (HELP|TYPE) )?push_(failure_)?time_seconds\b/.test(l))
    .join("\n");

test("the table is large and cites its sources", () => {
  assert.ok(ROWS.length >= 70, `${ROWS.length} rows`);
  assert.equal(new Set(ROWS.map((r) => r.name)).size, ROWS.length, "row names are unique");
  for (const r of ROWS) assert.match(r.source, /^(common|handler|storage|brief|fuzz)\b/, r.name);
});

for (const row of ROWS) {
  test(`${row.name} (${row.source})`, async () => {
    for (const side of [peer, ours]) {
      assert.equal((await send(side, { method: "PUT", path: "/api/v1/admin/wipe" })).status, 202);
      await barrier(side);
    }
    const setup = row.steps.slice(0, -1);
    const push = row.steps.at(-1) as Step;
    for (const step of setup)
      for (const side of [peer, ours]) assert.ok((await send(side, step)).status < 300, "setup step");
    const prior = await scrape(ours);
    const p: Answer = await send(peer, push);
    const o: Answer = await send(ours, push);
    assert.equal(p.status, row.peer, `1.5.1 answered ${p.status}: ${p.body}`);
    if (row.ours !== undefined) {
      assert.equal(o.status, row.ours.status, `${row.ours.why}: ${o.body}`);
      return;
    }
    assert.equal(
      o.status,
      p.status,
      `status (1.5.1: ${JSON.stringify(p.body)}, ours: ${JSON.stringify(o.body)})`,
    );
    assert.equal(normalizeBody(o.body), normalizeBody(p.body), "message");
    const [pm, om] = [await scrape(peer), await scrape(ours)];
    assert.equal(normalizeExposition(om), normalizeExposition(pm), "scrape after the push");
    if (p.status >= 400)
      assert.equal(pushedSeries(om), pushedSeries(prior), "a refused push changed nothing");
  });
}
