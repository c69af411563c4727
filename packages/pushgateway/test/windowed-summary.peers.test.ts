// Our push summaries' quantiles against the real thing: client_golang's Summary (Debian's
// golang-github-prometheus-client-golang-dev, with beorn7/perks, built offline in GOPATH mode) fed the same
// observations and read at the same points must give the same estimates, count and sum, to the bit.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { PUSH_OBJECTIVES } from "../src/own-metrics.js";
import { WindowedSummary } from "../src/windowed-summary.js";
import { buildGoProgram } from "./support/go-program.js";
import { xorshift32 } from "./support/xorshift.js";

const exec = promisify(execFile);

// Reads steps from the file named by its argument: `o <value>` observes, `r` reads. Prints, per read, the quantile
// estimates in ascending order, then the count and the sum.
const PROGRAM = `package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func main() {
	s := prometheus.NewSummary(prometheus.SummaryOpts{
		Name: "s", Help: "h", Objectives: map[float64]float64{0.1: 0.01, 0.5: 0.05, 0.9: 0.01},
	})
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	in := bufio.NewScanner(f)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := in.Text()
		if line == "r" {
			m := &dto.Metric{}
			if err := s.Write(m); err != nil {
				panic(err)
			}
			parts := []string{}
			for _, q := range m.Summary.Quantile {
				parts = append(parts, strconv.FormatFloat(q.GetValue(), 'g', -1, 64))
			}
			parts = append(parts, strconv.FormatUint(m.Summary.GetSampleCount(), 10))
			parts = append(parts, strconv.FormatFloat(m.Summary.GetSampleSum(), 'g', -1, 64))
			fmt.Fprintln(out, strings.Join(parts, " "))
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimPrefix(line, "o "), 64)
		if err != nil {
			panic(err)
		}
		s.Observe(v)
	}
	out.Flush()
}
`;

let dir: string;
let bin: string;

before(async () => {
  ({ bin, dir } = await buildGoProgram(PROGRAM, { name: "summary" }));
});

after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Step = { kind: "observe"; value: number } | { kind: "read" };

/** `count` observations drawn by `draw`, read before the first and after each index in `reads`. */
function steps(draw: () => number, count: number, reads: readonly number[]): Step[] {
  const out: Step[] = [{ kind: "read" }];
  for (let i = 1; i <= count; i++) {
    out.push({ kind: "observe", value: draw() });
    if (reads.includes(i)) out.push({ kind: "read" });
  }
  return out;
}

async function viaGo(name: string, run: readonly Step[]): Promise<number[][]> {
  const file = join(dir, `${name}.steps`);
  await writeFile(file, `${run.map((s) => (s.kind === "read" ? "r" : `o ${s.value}`)).join("\n")}\n`);
  const { stdout } = await exec(bin, [file], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .trim()
    .split("\n")
    .map((line) => line.split(" ").map(Number));
}

function viaOurs(run: readonly Step[]): number[][] {
  const summary = new WindowedSummary({ objectives: PUSH_OBJECTIVES, now: () => 0 });
  const reads: number[][] = [];
  for (const s of run) {
    if (s.kind === "observe") summary.observe(s.value);
    else reads.push([...summary.quantiles().map(([, v]) => v), summary.count, summary.sum]);
  }
  return reads;
}

const READS = [1, 2, 10, 250, 499, 500, 501, 777, 1000, 1499, 1500, 4321, 10_000, 12_345, 30_000];

for (const [name, draw] of [
  ["uniform", (r: () => number) => r()],
  ["push durations (exponential, ms)", (r: () => number) => -Math.log(1 - r()) * 0.0012],
  ["push sizes (a few repeated values)", (r: () => number) => 3000 + Math.floor(r() * 5) * 17],
] as const) {
  test(`the push summaries' estimates match client_golang's, read at the same points: ${name}`, async () => {
    const r = xorshift32(20261126);
    const run = steps(() => draw(r), 30_000, READS);
    const go = await viaGo(name.replace(/\W+/g, "-"), run);
    const ours = viaOurs(run);
    assert.equal(go.length, READS.length + 1);
    // Object.is: NaN (nothing observed yet) equals NaN, and every estimate must be the same double.
    ours.forEach((row, i) => {
      const expected = go[i] ?? [];
      assert.ok(
        row.length === expected.length && row.every((v, j) => Object.is(v, expected[j])),
        `read ${i}: ours ${row.join(" ")}, client_golang ${expected.join(" ")}`,
      );
    });
  });
}
