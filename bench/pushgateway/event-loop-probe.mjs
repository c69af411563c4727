// Preloaded into ours by persistence.mjs (NODE_OPTIONS=--import): how long the event loop was held during each
// persistence write, from the creation of the persistence worker to its end. Two measures:
// - maxMs: perf_hooks monitorEventLoopDelay's max (1 ms resolution), the delay a request could see;
// - the longest gap between two ticks of a 1 ms timer, split with the main thread's /proc schedstat into the time it
//   ran (gapRunMs: work on the event loop, the write's or a collection's) and the time it waited for a CPU
//   (gapWaitMs: other threads and processes on the machine had the cores);
// - busiestMs: the most time the main thread spent on a CPU between any two ticks of that timer during the write,
//   the event loop held by work (the write's own or a collection's) whatever the machine's load.
//   Garbage collections of the main heap within that gap (gapGcMs, from perf_hooks "gc" entries) are named too: a
//   collection's main thread also sleeps while it waits for its helper threads.
// One JSON line per write to $PGW_ELD_LOG.
import { appendFileSync, readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import workerThreads from "node:worker_threads";

const log = process.env.PGW_ELD_LOG;
if (log && workerThreads.isMainThread) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // The main thread's time on a CPU and waiting for one, in ms (Linux /proc/<pid>/task/<pid>/schedstat).
  const schedstat = () => {
    const [run, wait] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, "utf8").split(" ");
    return { run: Number(run) / 1e6, wait: Number(wait) / 1e6 };
  };
  let writing = 0;
  // The most time the main thread spent on a CPU between two ticks during the write: the event loop held by work.
  let busiest = 0;
  let worst = { gapMs: 0, gapRunMs: 0, gapWaitMs: 0, from: 0, to: 0 };
  // Recent collections of the main heap: [start, end] in performance.now() time.
  const collections = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push([e.startTime, e.startTime + e.duration]);
    if (collections.length > 1000) collections.splice(0, collections.length - 1000);
  }).observe({ entryTypes: ["gc"] });
  const gcWithin = (from, to) =>
    collections.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);
  let last = { at: performance.now(), ...schedstat() };
  setInterval(() => {
    const now = { at: performance.now(), ...schedstat() };
    const gap = now.at - last.at;
    if (writing > 0) busiest = Math.max(busiest, now.run - last.run);
    if (writing > 0 && gap > worst.gapMs)
      worst = {
        gapMs: gap,
        gapRunMs: now.run - last.run,
        gapWaitMs: now.wait - last.wait,
        // The collections within it are counted when the write ends: the observer reports each one after it.
        from: last.at,
        to: now.at,
      };
    last = now;
  }, 1).unref();
  const Original = workerThreads.Worker;
  workerThreads.Worker = class extends Original {
    constructor(url, options) {
      const persistence = String(url).includes("persistence-worker");
      if (persistence) {
        h.reset();
        writing++;
        busiest = 0;
        worst = { gapMs: 0, gapRunMs: 0, gapWaitMs: 0, from: 0, to: 0 };
      }
      const started = performance.now();
      super(url, options);
      if (persistence)
        this.once("exit", () => {
          writing--;
          const round = (v) => Math.round(v * 10) / 10;
          const line = {
            writeMs: Math.round(performance.now() - started),
            maxMs: round(h.max / 1e6),
            busiestMs: round(busiest),
            gapMs: round(worst.gapMs),
            gapRunMs: round(worst.gapRunMs),
            gapWaitMs: round(worst.gapWaitMs),
            gapGcMs: round(gcWithin(worst.from, worst.to)),
          };
          appendFileSync(log, `${JSON.stringify(line)}\n`);
        });
    }
  };
  syncBuiltinESMExports();
}
