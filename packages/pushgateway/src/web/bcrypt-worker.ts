// The worker thread of basic-auth.ts: bcrypt comparisons run here, never on the event loop that serves requests.
import { parentPort } from "node:worker_threads";
import bcrypt from "bcryptjs";

/** A comparison asked of the worker. */
export interface BcryptJob {
  readonly id: number;
  readonly password: string;
  readonly hash: string;
}

parentPort?.on("message", (job: BcryptJob) => {
  let ok = false;
  try {
    ok = bcrypt.compareSync(job.password, job.hash);
  } catch {
    // A hash bcryptjs cannot read never verifies (upstream: CompareHashAndPassword returns an error).
  }
  parentPort?.postMessage({ id: job.id, ok });
});
