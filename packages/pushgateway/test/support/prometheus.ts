import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startProcess, stop, track } from "./processes.js";

/** One sample of an instant query's answer. */
export interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

/** A Prometheus started by {@link startPrometheus}. */
export interface StartedPrometheus {
  /** Runs an instant query (PromQL) and returns its samples. */
  query(promql: string): Promise<QueryResult[]>;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Starts Debian's prometheus on 127.0.0.1 scraping `target` (host:port) every second with `honor_labels: true`, as
 * docs/ha.md and upstream's README tell users to scrape a gateway. Registered with startProcess, so the file's
 * `after(stopAll)` stops it should a test throw before `close()`.
 */
export async function startPrometheus(
  target: string,
  options: { nativeHistograms?: boolean } = {},
): Promise<StartedPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), "pg-prometheus-"));
  const port = await freePort();
  let child: ChildProcess;
  try {
    const config = join(dir, "prometheus.yml");
    await writeFile(
      config,
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n    static_configs:\n      - targets: ["${target}"]\n`,
    );
    ({ child } = await startProcess(
      "prometheus",
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        ...(options.nativeHistograms ? ["--enable-feature=native-histograms"] : []),
      ],
      { ready: /Server is ready to receive web requests/ },
    ));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    async query(promql) {
      const url = `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`;
      const body = (await (await fetch(url)).json()) as { data: { result: QueryResult[] } };
      return body.data.result;
    },
    async close() {
      await stop(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What `promtool check metrics` (Debian's prometheus) says about an exposition, one line per problem, leaving out
 * "no help text" (pushed families may lack HELP); empty when it accepts the text.
 */
export function promtoolProblems(text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn("promtool", ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"], timeout: 60_000 });
    track(p);
    let out = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    p.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    p.on("error", reject);
    p.on("close", () =>
      resolve(out.split("\n").filter((l) => l.trim() !== "" && !l.includes("no help text"))),
    );
    p.stdin.end(text);
  });
}
