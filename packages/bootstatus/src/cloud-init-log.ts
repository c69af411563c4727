/** How a stage or module ended, as cloud-init's `finish:` events say (`UNFINISHED`: started, never finished). */
export type Outcome = "SUCCESS" | "WARN" | "FAIL" | "UNFINISHED";

/** One module of a stage run. */
export interface ModuleRun {
  module: string;
  outcome: Outcome;
  duration_seconds: number | null;
  message: string;
}

/** One run of a stage (a stage run twice, as by a restarted unit, is listed twice). */
export interface StageRun {
  stage: string;
  outcome: Outcome;
  duration_seconds: number | null;
  modules: ModuleRun[];
}

/** A Python traceback in the log, with the stage and module that were running. */
export interface Traceback {
  stage: string | null;
  module: string | null;
  exception: string;
}

/** What cloud-init.log says about the last boot in it. */
export interface LogFindings {
  stages: StageRun[];
  tracebacks: Traceback[];
  warnings: string[];
}

// "2026-11-28 08:43:21,916 - handlers.py[DEBUG]: finish: modules-final: FAIL: running modules for final"
// (cloudinit/log: `%(asctime)s - %(filename)s[%(levelname)s]: %(message)s`, 05_logging.cfg).
const RECORD = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) - [^[\]]*\[([A-Z]+)\]: (.*)$/;
// cloudinit/reporting/events.py: "start: <name>: <description>", "finish: <name>: <result>: <description>".
const EVENT = /^(start|finish): ([^:\s]+): (?:(SUCCESS|WARN|FAIL): )?(.*)$/;
// cloudinit/config/modules.py: "Running module X (<module ...>) failed" (22.x), "Failed to run module X" (later).
const MODULE_FAILED = /^(?:Running module (\S+) \(.*\) failed|Failed to run module (\S+))/;
// util.py "Cloud-init v. 22.4.2 running 'init-local' at ..." opens each stage; the top-level `start:` event is
// emitted before logging is set up, so `cloud-init analyze` (analyze/dump.py parse_ci_logline) takes this banner
// as the stage's start, naming `init` init-network and `modules:final` modules-final.
const BANNER = /^Cloud-init v\. \S+ running '([^']+)'/;
const BOOT_LOCAL = /Cloud-init v\. \S+ running 'init-local'/;
const BOOT_INIT = /Cloud-init v\. \S+ running 'init'/;

interface Record {
  time: number;
  level: string;
  message: string;
  /** Lines after the record's first (a traceback). */
  more: string[];
}

function records(lines: readonly string[]): Record[] {
  const out: Record[] = [];
  for (const line of lines) {
    const m = RECORD.exec(line);
    if (m === null) {
      out.at(-1)?.more.push(line);
      continue;
    }
    const [, y, mo, d, h, mi, s, ms, level = "", message = ""] = m;
    const time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms));
    out.push({ time, level, message, more: [] });
  }
  return out;
}

/** The lines of the last boot in the log: from the last `running 'init-local'` (else `'init'`) on. */
function lastBoot(lines: readonly string[]): readonly string[] {
  for (const marker of [BOOT_LOCAL, BOOT_INIT]) {
    for (let i = lines.length - 1; i >= 0; i--) if (marker.test(lines[i] ?? "")) return lines.slice(i);
  }
  return lines;
}

/** Whether the text holds the start of a boot (else an older, rotated file may hold it). */
export function hasBootStart(text: string): boolean {
  return BOOT_LOCAL.test(text) || BOOT_INIT.test(text);
}

/** The exception lines of the tracebacks in a record's extra lines (chained ones included). */
function exceptions(more: readonly string[]): string[] {
  const found: string[] = [];
  let inTraceback = false;
  for (const line of more) {
    if (line.startsWith("Traceback (most recent call last):")) {
      inTraceback = true;
      continue;
    }
    if (!inTraceback || line === "" || /^\s/.test(line)) continue;
    found.push(line.trimEnd());
    inTraceback = false;
  }
  return found;
}

// A finish logged before its start means the wall clock was set back in between (an NTP step during boot): no
// duration is known then. `cloud-init analyze` prints the negative difference; report v1's schema has minimum 0.
const seconds = (from: number, to: number): number | null =>
  to < from ? null : Math.round(to - from) / 1000;

/**
 * Reads cloud-init.log's text as `cloud-init analyze` reads it: per stage run and module the outcome and duration
 * from the `start:`/`finish:` events, module failures, tracebacks with the module that was running, WARNING
 * lines. Only the last boot counts. Lines it does not understand are skipped: it never throws.
 */
export function parseCloudInitLog(text: string): LogFindings {
  const findings: LogFindings = { stages: [], tracebacks: [], warnings: [] };
  const starts = new Map<string, number>();
  let stage: StageRun | undefined;
  let module: string | undefined;
  const seen = new Set<string>();
  const moduleRun = (name: string): ModuleRun | undefined => stage?.modules.find((m) => m.module === name);
  const openStage = (name: string, time: number): void => {
    starts.set(name, time);
    // A `start:` event right after the banner (logged by later releases) is the same start.
    if (stage?.stage === name && stage.outcome === "UNFINISHED" && stage.modules.length === 0) return;
    stage = { stage: name, outcome: "UNFINISHED", duration_seconds: null, modules: [] };
    findings.stages.push(stage);
    module = undefined;
  };
  for (const record of records(lastBoot(text.split("\n")))) {
    const banner = BANNER.exec(record.message);
    if (banner !== null) {
      const name = (banner[1] ?? "").replace(":", "-");
      openStage(name === "init" ? "init-network" : name, record.time);
      continue;
    }
    const event = EVENT.exec(record.message);
    if (event !== null) {
      const [, kind, name = "", result, description = ""] = event;
      const [stageName = "", sub] = name.split("/", 2);
      const moduleName = sub?.startsWith("config-") ? sub.slice("config-".length) : undefined;
      if (kind === "start") {
        starts.set(name, record.time);
        if (sub === undefined) openStage(stageName, record.time);
        else if (moduleName !== undefined && stage?.stage === stageName) {
          module = moduleName;
          stage.modules.push({
            module: moduleName,
            outcome: "UNFINISHED",
            duration_seconds: null,
            message: description,
          });
        }
        continue;
      }
      const outcome = (result ?? "SUCCESS") as Outcome;
      const began = starts.get(name);
      const duration = began === undefined ? null : seconds(began, record.time);
      if (sub === undefined && stage?.stage === stageName) {
        stage.outcome = outcome;
        stage.duration_seconds = duration;
      } else if (moduleName !== undefined) {
        const run = moduleRun(moduleName);
        if (run !== undefined)
          Object.assign(run, { outcome, duration_seconds: duration, message: description });
      }
      continue;
    }
    const failed = MODULE_FAILED.exec(record.message);
    if (failed !== null) {
      module = failed[1] ?? failed[2];
      const run = module === undefined ? undefined : moduleRun(module);
      if (run !== undefined) run.outcome = "FAIL";
      else if (module !== undefined && stage !== undefined) {
        stage.modules.push({ module, outcome: "FAIL", duration_seconds: null, message: record.message });
      }
    }
    if (record.level === "WARNING") findings.warnings.push(record.message);
    for (const exception of exceptions(record.more)) {
      const key = `${stage?.stage}\0${module}\0${exception}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.tracebacks.push({ stage: stage?.stage ?? null, module: module ?? null, exception });
    }
  }
  return findings;
}

/** `stage/module` of every module the log records as failed. */
export function failedModules(findings: LogFindings): string[] {
  return findings.stages.flatMap((s) =>
    s.modules.filter((m) => m.outcome === "FAIL").map((m) => `${s.stage}/${m.module}`),
  );
}
