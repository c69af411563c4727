// Composition root: the only module that touches `process`.
import { fork, spawn } from "node:child_process";
import { readFileSync, readlinkSync, watch, writeSync } from "node:fs";
import { access, mkdir, open, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { unixSocketPath } from "@local/go-compat/systemd-activation";
import { koffiPin, type NativeLibrary } from "./command/bind-libc.js";
import { createHelperPool } from "./command/helper-pool.js";
import { killGroup } from "./command/kill-group.js";
import { type CommandResult, nodeSpawn, type RunRequest } from "./command/node-spawn.js";
import { createPosixSpawn, SPAWNS_IN_FLIGHT } from "./command/posix-spawn.js";
import { main } from "./main.js";
import { readRegularFile } from "./regular-file.js";
import { writeFileAtomically } from "./write-file-atomically.js";

let runner: Promise<(request: RunRequest) => Promise<CommandResult>> | undefined;
let chosen: ((request: RunRequest) => Promise<CommandResult>) | undefined;

/**
 * How commands start, picked on the first run (after `-setuid`/`-setgid`): libc's posix_spawn through koffi where it
 * loads, else node's spawn in two helper processes (command/helper-pool.ts). Two helpers: the machines this targets have
 * a few cores, and more helpers only add memory.
 */
async function chooseRunner(): Promise<(request: RunRequest) => Promise<CommandResult>> {
  if (process.env.WEBHOOK_NODE_SPAWN !== "1") {
    try {
      const koffi = (await import("koffi")).default;
      // Before any library loads (koffi refuses later): a resident block for each spawn in flight.
      koffi.config({ resident_async_pools: SPAWNS_IN_FLIGHT });
      const libc = loadLibc(koffi.load);
      return createPosixSpawn({
        libc,
        errno: () => koffi.errno(),
        onChildExit: (listener) => process.on("SIGCHLD", listener),
        killGroup,
        pin: koffiPin(koffi),
      });
    } catch {
      // No koffi build for this platform, or a libc without posix_spawn_file_actions_addchdir_np.
    }
  }
  const pool = createHelperPool({
    size: 2,
    start: () =>
      fork(fileURLToPath(new URL("./command/helper-entry.js", import.meta.url)), [], {
        serialization: "advanced",
        execArgv: [],
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      }),
  });
  // A streamed or cancellable run (beyond upstream) needs its output and its stop here, not behind a helper's IPC.
  return (request) =>
    request.onOutput !== undefined || request.abort !== undefined
      ? nodeSpawn(request, { spawn, killGroup })
      : pool.run(request);
}

/** glibc's libc, or musl's (named after the architecture). */
function loadLibc(load: (path: string) => NativeLibrary): NativeLibrary {
  const musl = `libc.musl-${process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : process.arch}.so.1`;
  try {
    return load("libc.so.6");
  } catch {
    return load(musl);
  }
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // A copy: reading process.env goes through getenv for every variable, ~40 µs per command (bench/webhook).
  env: { ...process.env },
  cwd: process.cwd(),
  command: {
    run: (request) => {
      // Once picked, called directly: a promise hop per command costs more than it reads.
      if (chosen !== undefined) return chosen(request);
      runner ??= chooseRunner().then((run) => {
        chosen = run;
        return run;
      });
      return runner.then((run) => run(request));
    },
    tmpdir: tmpdir(),
  },
  onSignal: (signal, handler) => process.on(signal, handler),
  pid: process.pid,
  writeFile: async (path, data) => {
    await mkdirAll(dirname(path));
    await writeFileAtomically(path, data);
  },
  readFile: (path) =>
    readRegularFile(path).then(
      (data) => data.toString("utf8"),
      () => undefined,
    ),
  removeFile: (path) => rm(path, { force: true }),
  watch: (dir, onChange) => {
    // One write or rename raises several events; settle for 100 ms (as upstream waits after a rename).
    const pending = new Map<string, NodeJS.Timeout>();
    // Not persistent: the server keeps the process alive, and a start-up that ends (a TLS error) must not hang on it.
    const watcher = (() => {
      try {
        return watch(dir, { persistent: false }, (_event, file) => {
          if (!file) return;
          const name = file.toString();
          clearTimeout(pending.get(name));
          pending.set(
            name,
            setTimeout(() => {
              pending.delete(name);
              onChange(name);
            }, 100),
          );
        });
      } catch {
        return undefined; // the directory went away before it could be watched: there is nothing to follow
      }
    })();
    // A watched directory removed ends its watch; that must not end the server.
    watcher?.on("error", () => watcher.close());
  },
  realpath: (path) => realpath(path),
  exists: (path) =>
    access(path).then(
      () => true,
      () => false,
    ),
  exit: (code) => process.exit(code),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
  openLog: async (path) => {
    const handle = await open(path, "a", 0o666);
    // Written at once, as Go's log writes: a line queued in a stream would be lost when SIGTERM's exit comes first.
    // Upstream's log package drops a line it cannot write (a full disk).
    return {
      write: (s: string) => {
        try {
          writeSync(handle.fd, s);
        } catch {}
      },
    };
  },
  dropPrivileges: (uid, gid) => {
    // As upstream's dropPrivileges: no supplementary groups, then the group, then the user.
    process.setgroups?.([]);
    process.setgid?.(gid);
    process.setuid?.(uid);
  },
  now: () => new Date(),
  socketPath: (fd) =>
    unixSocketPath(fd, { readlink: readlinkSync, readFile: (path) => readFileSync(path, "utf8") }),
});

/**
 * Go's `os.MkdirAll(dir, 0755)`, one level at a time: node's `mkdir({ recursive: true })` never returns for a path
 * under /proc (it retries ENOENT forever), which a bad `-pidfile` must not turn into a hang.
 */
async function mkdirAll(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o755 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT" || dirname(dir) === dir) throw error;
    await mkdirAll(dirname(dir));
    await mkdir(dir, { mode: 0o755 });
  }
}
