import type { RunRequest } from "../../src/command/node-spawn.js";

/** A run of `/bin/sh -c script` with a minimal PATH in `/`, as the spawner tests use it; `extra` overrides. */
export function shRequest(script: string, extra: Partial<RunRequest> = {}): RunRequest {
  return {
    path: "/bin/sh",
    argv0: "sh",
    args: ["-c", script],
    env: { PATH: "/usr/bin:/bin" },
    cwd: "/",
    timeout: 0,
    ...extra,
  };
}
