import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exitStatus } from "../command/exit-status.js";
import type { CommandResult } from "../command/node-spawn.js";
import { readRegularFileSync } from "../regular-file.js";
import { JobOutput, outputBytesOnDisk } from "./job-output.js";

/** A job's state (`GET /jobs/<id>`). */
export type JobState = "queued" | "running" | "succeeded" | "failed" | "timed-out" | "cancelled";

/** What `GET /jobs/<id>` answers, in this field order. */
export interface JobView {
  readonly id: string;
  readonly hook: string;
  readonly state: JobState;
  readonly exit_code: number | null;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly output_bytes: number;
  readonly reason: string | null;
}

/** The form of a job id: 128 random bits in lower-case hex. Nothing else names a job, or a path under the store. */
const JOB_ID = /^[0-9a-f]{32}$/;

/** Why a run ended without running to its end, set by whoever stopped it. */
export type StopCause = { readonly kind: "cancelled"; readonly reason: string };

interface JobRecord extends JobView {
  /** Orders a hook's jobs for `-jobs-keep`; not shown. */
  readonly created_at: string;
}

/**
 * One run of a hook (beyond upstream, `-jobs-dir`; as ncarlier/webhookd's jobs, adnanh/webhook#205): its state in
 * `<dir>/<id>/job.json` (written whole and renamed into place at each change, so a crash leaves the last complete
 * one) and its output in segment files beside it. Readers of a running job wait on `changed()`.
 */
export class Job {
  readonly id: string;
  readonly hook: string;
  readonly dir: string;
  #record: JobRecord;
  #output: JobOutput | undefined;
  #wakers: (() => void)[] = [];
  /** Counts the changes (output, state), so a reader can tell whether one came while it was busy. */
  #version = 0;
  #stop: (() => void) | undefined;
  #stopCause: StopCause | undefined;
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  /** Writing the output failed (a full disk): the rest is not kept, and the run goes on. */
  #outputFailed = false;

  constructor(
    record: JobRecord,
    options: { dir: string; now: () => Date; log: (line: string) => void; output?: JobOutput },
  ) {
    this.id = record.id;
    this.hook = record.hook;
    this.dir = options.dir;
    this.#record = record;
    this.#now = options.now;
    this.#log = options.log;
    this.#output = options.output;
  }

  get state(): JobState {
    return this.#record.state;
  }

  get createdAt(): string {
    return this.#record.created_at;
  }

  /** Why it was asked to stop, once it was. */
  get stopReason(): string | undefined {
    return this.#stopCause?.reason;
  }

  /** Whether the job has ended (any state but `queued` and `running`). */
  get finished(): boolean {
    return this.state !== "queued" && this.state !== "running";
  }

  view(): JobView {
    const r = this.#record;
    return {
      id: r.id,
      hook: r.hook,
      state: r.state,
      exit_code: r.exit_code,
      started_at: r.started_at,
      finished_at: r.finished_at,
      output_bytes: this.#output?.bytes ?? r.output_bytes,
      reason: r.reason,
    };
  }

  /** The command starts. */
  start(): void {
    this.#update({ state: "running", started_at: this.#now().toISOString() });
  }

  /** A piece of the command's output. */
  append(chunk: Buffer): void {
    if (this.#outputFailed) return;
    try {
      this.#output?.append(chunk);
    } catch (error) {
      // The command must not fail because its job's output could not be kept.
      this.#outputFailed = true;
      this.#log(
        `jobs: job ${this.id}: keeping its output failed, the rest is dropped: ${(error as Error).message}`,
      );
    }
    this.#wake();
  }

  /** The command ended: the state follows from how (a stop asked for through `stop` makes it `cancelled`). */
  finish(result: CommandResult): void {
    this.#output?.close();
    const { code, reason } = exitStatus(result);
    const cause = this.#stopCause;
    const state: JobState =
      cause !== undefined
        ? "cancelled"
        : result.timedOut
          ? "timed-out"
          : result.error === undefined
            ? "succeeded"
            : "failed";
    this.#stop = undefined;
    this.#update({
      state,
      exit_code: code,
      reason: cause?.reason ?? reason ?? (result.timedOut ? "timed out" : null),
      finished_at: this.#now().toISOString(),
      output_bytes: this.#output?.bytes ?? 0,
    });
  }

  /** Ends a job that never ran (cancelled while queued, or the run could not be made). */
  abandon(state: "cancelled" | "failed", reason: string): void {
    this.#output?.close();
    this.#stop = undefined;
    this.#update({
      state,
      reason,
      finished_at: this.#now().toISOString(),
      output_bytes: this.#output?.bytes ?? 0,
    });
  }

  /** How a queued or running job is stopped (set by the run: leave the queue, or stop the process group). */
  onStop(stop: () => void): void {
    this.#stop = stop;
  }

  /**
   * Asks the job to stop (`DELETE /jobs/<id>`, a client gone, a shutdown); false when it has already ended. The
   * state becomes `cancelled` once the run has ended.
   */
  stop(reason: string): boolean {
    if (this.finished || this.#stop === undefined) return false;
    this.#stopCause ??= { kind: "cancelled", reason };
    this.#stop();
    return true;
  }

  /** The number of changes so far, for {@link Job.changed}. */
  get version(): number {
    return this.#version;
  }

  /** Resolves once a piece of output or a change of state has come after `since` (a `version` read earlier). */
  changed(since: number): Promise<void> {
    if (this.#version !== since) return Promise.resolve();
    return new Promise((resolve) => this.#wakers.push(resolve));
  }

  #update(change: Partial<JobRecord>): void {
    this.#record = { ...this.#record, ...change };
    try {
      writeRecord(this.dir, this.#record);
    } catch (error) {
      // Served from memory meanwhile; the file keeps the last state written.
      this.#log(`jobs: job ${this.id}: writing its state failed: ${(error as Error).message}`);
    }
    this.#wake();
  }

  #wake(): void {
    this.#version++;
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
  }
}

/** The jobs in `-jobs-dir`, kept in memory as well (a few hundred small records). */
export class JobStore {
  readonly dir: string;
  /** `-jobs-output-bytes`: the output each job keeps (its newest bytes). */
  readonly outputBytes: number;
  readonly #keep: number;
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  readonly #jobs = new Map<string, Job>();

  private constructor(
    dir: string,
    options: { outputBytes: number; keep: number; now: () => Date; log: (line: string) => void },
  ) {
    this.dir = dir;
    this.outputBytes = options.outputBytes;
    this.#keep = options.keep;
    this.#now = options.now;
    this.#log = options.log;
  }

  /**
   * Opens (creating) the directory and reads the jobs in it. A job that was queued or running when the server
   * stopped (a crash, a kill) cannot be running now: it becomes `failed` (or `cancelled`, if it had not started),
   * with the reason. Entries that are not jobs are left alone.
   *
   * @throws {Error} when the directory cannot be created or read
   */
  static open(
    dir: string,
    options: { outputBytes: number; keep: number; now: () => Date; log: (line: string) => void },
  ): JobStore {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const store = new JobStore(dir, options);
    for (const name of readdirSync(dir)) {
      if (!JOB_ID.test(name)) continue;
      const jobDir = join(dir, name);
      let record: JobRecord;
      try {
        // Never blocks on a job.json that is not a regular file (a FIFO put there): it is skipped naming its type.
        record = parseRecord(readRegularFileSync(join(jobDir, "job.json")).toString("utf8"), name);
      } catch (error) {
        options.log(`jobs: skipping ${jobDir}: ${(error as Error).message}`);
        continue;
      }
      const interrupted = record.state === "running" || record.state === "queued";
      const output = interrupted
        ? new JobOutput(jobDir, {
            size: options.outputBytes,
            bytes: outputBytesOnDisk(jobDir, options.outputBytes),
          })
        : undefined;
      const job = new Job(record, {
        dir: jobDir,
        now: options.now,
        log: options.log,
        ...(output === undefined ? {} : { output }),
      });
      if (record.state === "running") job.abandon("failed", "the server stopped while the job was running");
      else if (record.state === "queued")
        job.abandon("cancelled", "the server stopped before the job started");
      store.#jobs.set(name, job);
    }
    for (const hook of new Set([...store.#jobs.values()].map((j) => j.hook))) store.#prune(hook);
    return store;
  }

  /** A new job of `hook`, `queued` until its run starts. */
  create(hook: string): Job {
    const id = randomBytes(16).toString("hex");
    const dir = join(this.dir, id);
    mkdirSync(dir, { mode: 0o700 });
    const record: JobRecord = {
      id,
      hook,
      state: "queued",
      exit_code: null,
      started_at: null,
      finished_at: null,
      output_bytes: 0,
      reason: null,
      created_at: this.#now().toISOString(),
    };
    writeRecord(dir, record);
    const job = new Job(record, {
      dir,
      now: this.#now,
      log: this.#log,
      output: new JobOutput(dir, { size: this.outputBytes }),
    });
    this.#jobs.set(id, job);
    this.#prune(hook);
    return job;
  }

  /** The job with this id; undefined for any other string (checked against the id's form first). */
  get(id: string): Job | undefined {
    return JOB_ID.test(id) ? this.#jobs.get(id) : undefined;
  }

  /** Jobs not ended yet. */
  active(): Job[] {
    return [...this.#jobs.values()].filter((j) => !j.finished);
  }

  /** `-jobs-keep`: only the newest `keep` jobs of a hook stay; older ended ones are removed with their output. */
  #prune(hook: string): void {
    // Oldest first; the sort is stable, so jobs made in the same millisecond stay in the order they were made.
    const jobs = [...this.#jobs.values()]
      .filter((j) => j.hook === hook)
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    let excess = jobs.length - this.#keep;
    for (const job of jobs) {
      if (excess <= 0) break;
      // A job still queued or running stays; it is removed by a later run once it has ended.
      if (!job.finished) continue;
      this.#jobs.delete(job.id);
      rmSync(job.dir, { recursive: true, force: true });
      excess--;
    }
  }
}

const STATES: readonly string[] = ["queued", "running", "succeeded", "failed", "timed-out", "cancelled"];

/**
 * A `job.json` read back, checked field by field (a file edited or cut short by hand is skipped, not served).
 *
 * @throws {Error} saying which field is wrong
 */
function parseRecord(text: string, id: string): JobRecord {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const isText = (k: string) => typeof raw[k] === "string";
  const orNull = (k: string, type: "string" | "number") => raw[k] === null || typeof raw[k] === type;
  const problems = [
    raw.id === id || "id",
    isText("hook") || "hook",
    STATES.includes(raw.state as string) || "state",
    orNull("exit_code", "number") || "exit_code",
    orNull("started_at", "string") || "started_at",
    orNull("finished_at", "string") || "finished_at",
    (typeof raw.output_bytes === "number" && raw.output_bytes >= 0) || "output_bytes",
    orNull("reason", "string") || "reason",
    isText("created_at") || "created_at",
  ].filter((p): p is string => p !== true);
  if (problems.length > 0) throw new Error(`job.json: bad ${problems.join(", ")}`);
  return raw as unknown as JobRecord;
}

/** Written whole, then renamed over the old one: a reader (or a crash) sees one complete record or the other. */
function writeRecord(dir: string, record: JobRecord): void {
  const file = join(dir, "job.json");
  writeFileSync(`${file}.new`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(`${file}.new`, file);
}
