import { join } from "node:path";
import { RunQueue } from "../command/run-queue.js";
import { JobsDirError } from "../errors.js";
import { exitCodeFor } from "../exit-code.js";
import { DeliveryLog } from "./delivery-log.js";
import { JobStore } from "./job-store.js";

/** The jobs of `-jobs-dir` and the delivery ids seen (`deduplicate-by`), kept in its `deliveries/` directory. */
export interface Jobs {
  readonly store: JobStore;
  readonly deliveries: DeliveryLog;
}

/**
 * Opens `-jobs-dir` (beyond upstream): creates it (0700) if missing, reads the jobs, and marks those a crash or kill
 * interrupted (see {@link JobStore.open}).
 *
 * @throws {JobsDirError} naming the directory and the system's reason
 */
function openJobs(
  dir: string,
  options: { outputBytes: number; keep: number; now: () => Date; log: (line: string) => void },
): Jobs {
  try {
    return {
      store: JobStore.open(dir, options),
      deliveries: new DeliveryLog(join(dir, "deliveries"), { now: options.now }),
    };
  } catch (cause) {
    throw new JobsDirError(`error opening jobs directory ${dir}: ${(cause as Error).message}`, { cause });
  }
}

/** The runs of hooks in progress and waiting, and the jobs of `-jobs-dir` when it is given. */
export interface Runs {
  readonly queue: RunQueue;
  readonly jobs?: Jobs;
}

/**
 * The run queue, and `-jobs-dir` opened (beyond upstream), or the exit code (1) when it cannot be, the reason
 * reported as a start-up failure (shown even without `-verbose`).
 */
export function runsOrExitCode(
  config: { readonly jobsDir: string; readonly jobsOutputBytes: number; readonly jobsKeep: number },
  parts: { now: () => Date; log: (line: string) => void; report: (message: string) => void },
): Runs | number {
  const queue = new RunQueue();
  if (config.jobsDir === "") return { queue };
  try {
    const jobs = openJobs(config.jobsDir, {
      outputBytes: config.jobsOutputBytes,
      keep: config.jobsKeep,
      now: parts.now,
      log: parts.log,
    });
    return { queue, jobs };
  } catch (error) {
    if (!(error instanceof JobsDirError)) throw error;
    parts.report(error.message);
    return exitCodeFor(error);
  }
}

/**
 * Shutdown (beyond upstream): runs waiting in a queue are cancelled; runs of hooks with a queue (with `-jobs-dir`,
 * every run) may finish within the grace requests in flight get. Jobs still running after it are recorded as failed,
 * since the server that followed them is going (the command itself is left running, as upstream leaves commands).
 */
export async function settleRuns(
  runs: Runs,
  until: { closed: Promise<void>; grace: Promise<void> },
): Promise<void> {
  runs.queue.cancelWaiting();
  const idle = runs.queue.idle({ all: runs.jobs !== undefined });
  await Promise.race([Promise.all([until.closed, idle]), until.grace]);
  for (const job of runs.jobs?.store.active() ?? []) {
    if (job.state === "running") job.abandon("failed", "the server shut down while the job was running");
    else job.abandon("cancelled", "the server shut down before the job started");
  }
}
