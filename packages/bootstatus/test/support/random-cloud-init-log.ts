import { mulberry32 } from "./random-state-tree.js";

// Names a log could hold, hostile ones included: keys spelled like Object.prototype properties, empty, Unicode,
// very long, with odd whitespace.
const STAGES = [
  "init-local",
  "init-network",
  "modules-config",
  "modules-final",
  "__proto__",
  "constructor",
  "x",
];
const MODULES = [
  "config-scripts-user",
  "config-package-update-upgrade-install",
  "config-__proto__",
  "config-constructor",
  "config-toString",
  "config-hasOwnProperty",
  "config-",
  "config-ü✓",
  `config-${"m".repeat(300)}`,
  "check-cache",
  "__proto__",
];
const OUTCOMES = ["SUCCESS", "WARN", "FAIL", "success", ""];
const BANNERS = ["init-local", "init", "modules:config", "modules:final", "__proto__"];

/**
 * A random `cloud-init.log` (and `cloud-init-output.log`) in the shapes `--explain` reads (start:/finish: events,
 * the `running '<stage>'` banner, module failures of 22.x and later, tracebacks, WARNING lines), shuffled,
 * truncated and mixed with garbage, from a seed alone.
 */
export function randomCloudInitLogs(seed: number): { log: string; output: string } {
  const rnd = mulberry32(seed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const stamp = (): string =>
    pick([
      `2026-11-28 08:43:${String(10 + int(50)).padStart(2, "0")},${String(int(1000)).padStart(3, "0")}`,
      "2026-11-28 08:43:12",
      "",
      "9999-99-99 99:99:99,999",
    ]);
  const lines: string[] = [];
  for (let n = int(40); n > 0; n--) {
    const stage = pick(STAGES);
    const name = rnd() < 0.5 ? stage : `${stage}/${pick(MODULES)}`;
    const r = rnd();
    if (r < 0.3) lines.push(`${stamp()} - handlers.py[DEBUG]: start: ${name}: running ${name}`);
    else if (r < 0.6)
      lines.push(`${stamp()} - handlers.py[DEBUG]: finish: ${name}: ${pick(OUTCOMES)}: done ${name}`);
    else if (r < 0.68)
      lines.push(
        `${stamp()} - util.py[DEBUG]: Cloud-init v. 26.1 running '${pick(BANNERS)}' at Sat, 28 Nov 2026 08:43:12 +0000. Up ${int(999)}.${int(99)} seconds.`,
      );
    else if (r < 0.74)
      lines.push(`${stamp()} - util.py[WARNING]: Running module ${pick(MODULES)} (<module 'x'>) failed`);
    else if (r < 0.8) lines.push(`${stamp()} - modules.py[WARNING]: Failed to run module ${pick(MODULES)}`);
    else if (r < 0.86)
      lines.push(
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        pick(["", "E: x", "RuntimeError: boom"]),
      );
    else if (r < 0.92)
      lines.push(`${stamp()} - x.py[WARNING]: ${pick(["", "ü\u0000\r", "w".repeat(int(2000))])}`);
    else
      lines.push(pick(["", "\r", "\u0000\u0001", "start:", "finish: : :", `${stamp()} - [DEBUG]: finish:`]));
  }
  const eol = rnd() < 0.2 ? "\r\n" : "\n";
  const output = Array.from({ length: int(30) }, (_, i) => `line ${i} ${pick(["", "ü", "\t"])}`).join(eol);
  return { log: lines.join(eol) + (rnd() < 0.5 ? eol : ""), output };
}
