import { readFileSync } from "node:fs";
import path from "node:path";
import type { RunSystemctl } from "../../src/systemd.js";

const HEALTHY_ENVIRONMENT = "LANG=C.UTF-8\nPATH=/usr/bin:/bin\n";
const HEALTHY_UNIT = "ActiveState=active\nUnitFileState=enabled\nSubState=exited\nMainPID=0\n";

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The answers of test/fixtures/bin/systemctl (the fake the started CLI finds on PATH), without starting a
 * process: from the files in `dir` (a fixture's systemctl/ directory), else like a healthy host.
 */
export function fakeSystemctl(dir: string): RunSystemctl {
  return async (args) => {
    const fail = read(path.join(dir, "fail"));
    if (fail !== undefined) return { ok: false, stdout: "", stderr: fail };
    if (args[0] === "show-environment") {
      return {
        ok: true,
        stdout: read(path.join(dir, "show-environment")) ?? HEALTHY_ENVIRONMENT,
        stderr: "",
      };
    }
    if (args[0] === "show" && args[2] !== undefined) {
      return { ok: true, stdout: read(path.join(dir, args[2])) ?? HEALTHY_UNIT, stderr: "" };
    }
    return { ok: false, stdout: "", stderr: `fake systemctl: unexpected arguments: ${args.join(" ")}\n` };
  };
}
