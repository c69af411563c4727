// The real Go client (Debian's golang-github-prometheus-client-golang-dev, client_golang 1.14, built offline in
// GOPATH mode from /usr/share/gocode) pushes counters, gauges, classic and native histograms, summaries and
// exemplars to our gateway; what a protobuf scrape serves back must be what the client gathered, field for field.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type NativeHistogram, nativeBuckets } from "../src/exposition/native-buckets.js";
import { buildGoProgram } from "./support/go-program.js";
import { metricFamilyType as family } from "./support/metric-family-type.js";
import { startGateway, stopAll } from "./support/processes.js";
import { DELIMITED, splitDelimited } from "./support/scrape-fixtures.js";

const exec = promisify(execFile);

const PROGRAM = `package main

import (
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
	"github.com/prometheus/common/expfmt"
)

func main() {
	url, mode := os.Args[1], os.Args[2]
	pusher := func() *push.Pusher { return push.New(url, "gojob").Grouping("instance", "i1") }
	var err error
	switch mode {
	case "push":
		reg := prometheus.NewRegistry()
		counter := prometheus.NewCounter(prometheus.CounterOpts{Name: "go_requests_total", Help: "Requests."})
		counter.(prometheus.ExemplarAdder).AddWithExemplar(3, prometheus.Labels{"trace_id": "t-1"})
		gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "go_temperature", Help: "Temperature."}, []string{"room"})
		gauge.WithLabelValues("kitchen").Set(21.5)
		gauge.WithLabelValues("hall").Set(-3)
		classic := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "go_classic_seconds", Help: "Classic.", Buckets: []float64{0.1, 0.5, 1},
		})
		native := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "go_native_seconds", Help: "Native and classic.", Buckets: []float64{0.25, 1},
			NativeHistogramBucketFactor: 1.1, NativeHistogramZeroThreshold: 0.001,
		})
		nativeOnly := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "go_native_only_seconds", Help: "Native only.", NativeHistogramBucketFactor: 1.05,
		})
		for _, v := range []float64{0.0001, 0.05, 0.2, 0.3, 0.7, 2, -0.5} {
			classic.Observe(v)
			native.Observe(v)
			nativeOnly.Observe(v)
		}
		native.(prometheus.ExemplarObserver).ObserveWithExemplar(0.4, prometheus.Labels{"trace_id": "t-2"})
		summary := prometheus.NewSummary(prometheus.SummaryOpts{
			Name: "go_summary_seconds", Help: "Summary.", Objectives: map[float64]float64{0.5: 0.05, 0.9: 0.01},
		})
		for _, v := range []float64{1, 2, 3, 4} {
			summary.Observe(v)
		}
		reg.MustRegister(counter, gauge, classic, native, nativeOnly, summary)
		mfs, gerr := reg.Gather()
		if gerr != nil {
			panic(gerr)
		}
		out, ferr := os.Create(os.Args[3])
		if ferr != nil {
			panic(ferr)
		}
		enc := expfmt.NewEncoder(out, expfmt.FmtProtoDelim)
		for _, mf := range mfs {
			if eerr := enc.Encode(mf); eerr != nil {
				panic(eerr)
			}
		}
		out.Close()
		err = pusher().Gatherer(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return mfs, nil })).Push()
	case "add":
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "go_added", Help: "Added with POST."})
		g.Set(7)
		err = pusher().Collector(g).Add()
	case "delete":
		err = pusher().Delete()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`.replace(
  '"github.com/prometheus/common/expfmt"',
  '"github.com/prometheus/common/expfmt"\n\tdto "github.com/prometheus/client_model/go"',
);

let dir: string;
let bin: string;
let base: string;

before(async () => {
  ({ bin, dir } = await buildGoProgram(PROGRAM, { name: "push" }));
  ({ base } = await startGateway());
});

after(async () => {
  await stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Decoded = { name: string; help?: string; type?: string; metric: Record<string, unknown>[] };

function decodeAll(body: Buffer): Map<string, Decoded> {
  const out = new Map<string, Decoded>();
  for (const m of splitDelimited(body)) {
    const f = family.toObject(family.decode(m), { longs: String, enums: String, defaults: false }) as Decoded;
    out.set(f.name, f);
  }
  return out;
}

test("client_golang's push: every family comes back on a protobuf scrape as the client gathered it", async () => {
  const gathered = join(dir, "gathered.bin");
  await exec(bin, [base, "push", gathered], { timeout: 60_000 });
  const sent = decodeAll(await readFile(gathered));
  assert.ok(sent.size >= 6);
  const body = Buffer.from(
    await (await fetch(`${base}/metrics`, { headers: { Accept: DELIMITED } })).arrayBuffer(),
  );
  const served = decodeAll(body);
  for (const [name, f] of sent) {
    const back = served.get(name);
    assert.ok(back, `${name} is served`);
    assert.equal(back.type, f.type ?? "COUNTER", name);
    assert.equal(back.help, f.help, name);
    // Ours adds the grouping labels; the rest of each series is what the client sent.
    const strip = (m: Record<string, unknown>) => {
      const { label, ...value } = m;
      const rest = ((label as { name: string }[] | undefined) ?? []).filter(
        (l) => l.name !== "job" && l.name !== "instance",
      );
      return { ...value, label: rest };
    };
    const byLabels = (ms: Record<string, unknown>[]) =>
      ms.map(strip).sort((a, b) => JSON.stringify(a.label).localeCompare(JSON.stringify(b.label)));
    assert.deepEqual(byLabels(back.metric), byLabels(f.metric), name);
  }
  // The native histograms kept their schema and spans, the exemplars their trace ids.
  const native = served.get("go_native_only_seconds")?.metric[0]?.histogram as Record<string, unknown>;
  assert.ok(native.schema !== undefined && Array.isArray(native.positiveSpan));
  assert.match(JSON.stringify(served.get("go_requests_total")), /t-1/);
  // And the text scrape shows the classic form with the grouping labels.
  const text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /^go_temperature\{instance="i1",job="gojob",room="kitchen"\} 21\.5$/m);
  assert.match(text, /^go_classic_seconds_bucket\{instance="i1",job="gojob",le="0\.5"\} 5$/m);
  assert.match(text, /^go_summary_seconds_count\{instance="i1",job="gojob"\} 4$/m);
});

test("client_golang's Add (POST) merges into the group and Delete removes it", async () => {
  await exec(bin, [base, "add"], { timeout: 60_000 });
  let text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /^go_added\{instance="i1",job="gojob"\} 7$/m);
  assert.match(text, /^go_temperature\{instance="i1",job="gojob",room="hall"\} -3$/m);
  await exec(bin, [base, "delete"], { timeout: 60_000 });
  text = await (await fetch(`${base}/metrics`)).text();
  assert.doesNotMatch(text, /job="gojob"/);
});

test("client_golang pushing twice to http://gw/aggregate: counters, histograms (classic and native) and summary counts add up", async () => {
  const gathered = join(dir, "gathered-aggregate.bin");
  for (let run = 0; run < 2; run++)
    await exec(bin, [`${base}/aggregate`, "push", gathered], { timeout: 60_000 });
  const sent = decodeAll(await readFile(gathered));
  const served = decodeAll(
    Buffer.from(await (await fetch(`${base}/metrics`, { headers: { Accept: DELIMITED } })).arrayBuffer()),
  );
  const first = (name: string, from: Map<string, Decoded>) =>
    from.get(name)?.metric[0] as Record<string, Record<string, unknown>>;
  assert.equal(
    first("go_requests_total", served).counter?.value,
    2 * Number(first("go_requests_total", sent).counter?.value),
  );
  // Gauges take the latest value.
  const temperatures = (from: Map<string, Decoded>) =>
    (from.get("go_temperature")?.metric ?? []).map((m) => (m.gauge as { value: number }).value).sort();
  assert.deepEqual(temperatures(served), temperatures(sent));
  for (const name of ["go_classic_seconds", "go_native_seconds", "go_native_only_seconds"]) {
    const got = first(name, served).histogram as Record<string, unknown>;
    const want = first(name, sent).histogram as Record<string, unknown>;
    assert.equal(Number(got.sampleCount), 2 * Number(want.sampleCount), name);
    assert.equal(got.sampleSum, 2 * Number(want.sampleSum), name);
    const buckets = (h: Record<string, unknown>) =>
      ((h.bucket as { cumulativeCount: string }[] | undefined) ?? []).map((b) => Number(b.cumulativeCount));
    assert.deepEqual(
      buckets(got),
      buckets(want).map((c) => 2 * c),
      name,
    );
    if (want.schema !== undefined) {
      assert.equal(got.schema, want.schema, name);
      assert.equal(Number(got.zeroCount ?? 0), 2 * Number(want.zeroCount ?? 0), name);
      const absolute = (h: Record<string, unknown>) =>
        nativeBuckets(h as NativeHistogram).map((b) => `${b.lower}..${b.upper}:${b.count}`);
      assert.deepEqual(
        absolute(got),
        nativeBuckets(want as NativeHistogram).map((b) => `${b.lower}..${b.upper}:${2 * b.count}`),
        name,
      );
    }
  }
  const summary = first("go_summary_seconds", served).summary as Record<string, unknown>;
  assert.equal(Number(summary.sampleCount), 8);
  assert.equal(summary.sampleSum, 20);
});
