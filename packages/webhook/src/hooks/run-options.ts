import { HooksFileError } from "../errors.js";
import type { Hook } from "./hook.js";

/**
 * Refuses run options (beyond upstream) that cannot work as written, rather than ignoring them: a `queue` without
 * `maximum-concurrent-executions` (nothing would ever wait), negative counts, and `deduplicate-by` without
 * `-jobs-dir` (the delivery ids and the first run's job live there). The file is then not loaded, as a file that
 * does not parse.
 *
 * @throws {HooksFileError} naming the hook and the option
 */
export function checkRunOptions(hooks: readonly Hook[], options: { jobs: object | undefined }): Hook[] {
  for (const hook of hooks) {
    const refuse = (why: string) => {
      throw new HooksFileError(`hook ${JSON.stringify(hook.id)}: ${why}`);
    };
    for (const [name, value] of [
      ["maximum-concurrent-executions", hook.maximumConcurrentExecutions],
      ["queue", hook.queue],
      ["timeout", hook.timeout],
      ["kill-grace-seconds", hook.killGraceSeconds],
    ] as const) {
      if (value < 0) refuse(`${name} must not be negative (got ${value})`);
    }
    if (hook.queue > 0 && hook.maximumConcurrentExecutions === 0)
      refuse("queue needs maximum-concurrent-executions (how many runs at once before runs wait)");
    if (hook.deduplicateBy !== "" && options.jobs === undefined)
      refuse("deduplicate-by needs -jobs-dir (where the delivery ids seen and their jobs are kept)");
  }
  return [...hooks];
}
