/**
 * Signals a whole process group (a negative-pid `kill`), for the command timeout; a group that is already gone is
 * not an error. Used where a process is at hand: the composition root and the spawn helper's entry.
 */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
