/**
 * Polls `check` every 100 ms until it returns true or `deadlineMs` passes; returns whether it held. A check that
 * throws (a refused connection while a process starts or restarts) counts as not yet.
 */
export async function eventually(check: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      // Not yet.
    }
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
