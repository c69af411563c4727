import type { CommandResult } from "./node-spawn.js";

/**
 * A run's exit code, or why it has none (killed by a signal, could not start): from Go's `exec` error texts the
 * runners report (`exit status 3`, `signal: killed`, `fork/exec …`).
 */
export function exitStatus(result: CommandResult): { code: number | null; reason: string | null } {
  if (result.error === undefined) return { code: 0, reason: null };
  const code = /^exit status (\d+)$/.exec(result.error)?.[1];
  return code === undefined ? { code: null, reason: result.error } : { code: Number(code), reason: null };
}
