import { constants } from "node:os";
import { goErrnoText, goSignalText } from "@local/go-compat/os-error";
import { bindLibc, type NativeLibrary } from "./bind-libc.js";
import { armStop, type CommandResult, needsGroup, type RunRequest } from "./node-spawn.js";

/** What spawning with libc needs from outside: the C library, the SIGCHLD signal and a process-group kill. */
export interface PosixSpawnDeps {
  /** libc, loaded by koffi (`koffi.load("libc.so.6")`). */
  readonly libc: NativeLibrary;
  /** The calling thread's errno after a failed call (`koffi.errno`). */
  readonly errno: () => number;
  /** Calls `listener` on every SIGCHLD. */
  readonly onChildExit: (listener: () => void) => void;
  /** Signals a whole process group (a negative-pid `kill`), for the command timeout. */
  readonly killGroup: (pid: number, signal: NodeJS.Signals) => void;
  /**
   * Copies a null-terminated list of strings into memory that never moves nor is freed (`koffi.alloc` and
   * `koffi.encode`), to be passed where a `const char **` goes; without it, lists are converted on every call.
   */
  readonly pin?: (list: readonly (string | null)[]) => unknown;
}

// Linux values (glibc and musl alike, every architecture node runs on).
const O_CLOEXEC = 0o2000000;
const O_RDONLY = 0;
const POSIX_SPAWN_SETPGROUP = 0x02;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const WNOHANG = 1;
/** The errno reported when koffi itself fails the call. */
const EIO = constants.errno.EIO;
/**
 * Spawns handed to the thread pool at once. koffi keeps at most 8 memory blocks for asynchronous calls resident
 * (`resident_async_pools`, which the caller raises to this, see cli.ts); every call beyond them maps and unmaps a
 * fresh 768 KiB, whose unmapping interrupts every core for a TLB flush (bench/webhook/README.md). One at a time was
 * slower on a busy machine (0.75x against 1.3x of the peer's requests/s): each start waits for its child to exec.
 */
export const SPAWNS_IN_FLIGHT = 8;
/** Environments copied once for good (see `pin`): the server's own, and a few to spare. */
const PINNED_ENVS = 4;
/** File actions kept for reuse (write end × working directory). */
const KEPT_FILE_ACTIONS = 64;
// Opaque libc structures, sized generously: glibc's are 80 (file actions), 336 (attributes) and 128 bytes (sigset).
const FILE_ACTIONS_SIZE = 256;
const ATTR_SIZE = 512;
const SIGSET_SIZE = 128;
const F_SETFL = 4;
const F_SETPIPE_SZ = 1031;
const O_NONBLOCK = 0o4000;
const EAGAIN = constants.errno.EAGAIN;
const EINTR = constants.errno.EINTR;
/**
 * How often a running command's output is drained (at once again while it keeps writing), and its exit checked
 * should a SIGCHLD be missed.
 */
const DRAIN_MS = 10;
/** Checks a millisecond apart for the end of output once the command has exited, before falling back to DRAIN_MS. */
const QUICK_CHECKS = 50;
/** The output pipe's size where the system allows it (Linux's default limit for unprivileged processes). */
const PIPE_SIZE = 1 << 20;
const READ_SIZE = 64 * 1024;

/**
 * Runs programs with libc's `posix_spawn`, as Go's `os/exec` starts them with `clone(CLONE_VFORK)`: the cost does not
 * grow with the server's memory, unlike node's `child_process`, whose libuv forks the whole process (bench/webhook:
 * about 3x the spawn rate). The same contract as {@link nodeSpawn}: no shell and no `/bin/sh` fallback for a file
 * without `#!` (Go's `exec format error`), stdin empty, stdout and stderr merged in arrival order, resolved once the
 * output pipe has closed and the exit status is known, Go's error texts.
 *
 * @throws {Error} when a libc function is missing (the caller then falls back to node's spawn)
 */
export function createPosixSpawn(deps: PosixSpawnDeps): (request: RunRequest) => Promise<CommandResult> {
  const c = bindLibc(deps.libc);
  // Every bit set, not sigfillset(): that leaves out glibc's two internal signals, which posix_spawn would then hand
  // down ignored where Go's and libuv's children have them at their default.
  const allSignals = Buffer.alloc(SIGSET_SIZE, 0xff);
  const noSignals = Buffer.alloc(SIGSET_SIZE);
  c.sigemptyset(noSignals);
  // Every signal back to its default and none blocked, as libuv and Go's exec leave them; with a timeout, its own
  // process group, so the timeout can stop it and everything it started. posix_spawn only reads its attributes, so
  // the two variants are built once and shared by every run.
  const attribute = (flags: number) => {
    const attr = Buffer.alloc(ATTR_SIZE);
    c.attrInit(attr);
    c.attrSetFlags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | flags);
    c.attrSetSigDefault(attr, allSignals);
    c.attrSetSigMask(attr, noSignals);
    return attr;
  };
  const plainAttr = attribute(0);
  const groupAttr = attribute(POSIX_SPAWN_SETPGROUP);
  /** One read buffer for every command: reads are synchronous, on this thread. */
  const readBuffer = Buffer.alloc(READ_SIZE);
  /** Children started and not yet reaped, by pid. */
  const exits = new Map<number, (status: number) => void>();
  const reap = (pid: number): boolean => {
    const status = new Int32Array(1);
    if (c.waitpid(pid, status, WNOHANG) !== pid) return false;
    const done = exits.get(pid);
    exits.delete(pid);
    done?.(status[0] as number);
    return true;
  };
  // Only our own pids are waited for: node's child_process reaps its children by pid too, so neither steals the
  // other's exit status.
  deps.onChildExit(() => {
    for (const pid of [...exits.keys()]) reap(pid);
  });

  // Runs beyond SPAWNS_IN_FLIGHT wait here for their turn to spawn (not to finish).
  let spawning = 0;
  const queued: (() => void)[] = [];
  /** Undefined when this run may spawn at once (no promise to wait for), else its turn. */
  const turn = (): Promise<void> | undefined => {
    if (spawning < SPAWNS_IN_FLIGHT) {
      spawning++;
      return undefined;
    }
    return new Promise((resolve) => queued.push(resolve));
  };
  const done = () => {
    const next = queued.shift();
    if (next === undefined) spawning--;
    else next();
  };

  /**
   * File actions by the pipe's write end and the working directory: stdin from /dev/null, stdout and stderr to the
   * pipe, the directory. posix_spawn only reads them, and building them takes six libc calls, three of which ask the
   * kernel for the descriptor limit (glibc checks each descriptor): kept, since descriptors are reused, a few entries
   * serve every run.
   */
  const actionsKept = new Map<string, Buffer>();
  const fileActions = (writeEnd: number, cwd: string): { actions: Buffer; kept: boolean } => {
    const key = `${writeEnd}\0${cwd}`;
    const kept = actionsKept.get(key);
    if (kept !== undefined) return { actions: kept, kept: true };
    const actions = Buffer.alloc(FILE_ACTIONS_SIZE);
    c.fileActionsInit(actions);
    c.addOpen(actions, 0, "/dev/null", O_RDONLY, 0);
    c.addDup2(actions, writeEnd, 1);
    c.addDup2(actions, writeEnd, 2);
    c.addChdir(actions, cwd);
    if (actionsKept.size >= KEPT_FILE_ACTIONS) return { actions, kept: false };
    actionsKept.set(key, actions);
    return { actions, kept: true };
  };
  /**
   * The `KEY=value` list of each environment seen, null-terminated as posix_spawn takes it (undefined when a C string
   * cannot hold it). An environment seen again (the server's own, for every hook without variables of its own) is
   * copied once into memory that stays put, where koffi would convert each of its strings on every run.
   */
  const envLists = new WeakMap<object, { list: (string | null)[] | undefined; pinned?: unknown }>();
  let pinnedLists = 0;
  const envList = (env: Readonly<Record<string, string>>): unknown => {
    const known = envLists.get(env);
    if (known !== undefined) {
      if (
        known.pinned === undefined &&
        known.list !== undefined &&
        deps.pin !== undefined &&
        pinnedLists < PINNED_ENVS
      ) {
        pinnedLists++;
        known.pinned = deps.pin(known.list);
      }
      return known.pinned ?? known.list;
    }
    const envp: (string | null)[] = [];
    let valid = true;
    for (const [k, v] of Object.entries(env)) {
      const pair = `${k}=${v}`;
      // A C string ends at NUL; Go's exec refuses such an environment with EINVAL.
      if (pair.includes("\0")) valid = false;
      envp.push(pair);
    }
    envp.push(null);
    const list = valid ? envp : undefined;
    envLists.set(env, { list });
    return list;
  };

  return async (request) => {
    const { path, args } = request;
    const envp = envList(request.env);
    // A C string ends at NUL; Go's exec refuses such an argv or environment with EINVAL.
    if (envp === undefined || [path, request.argv0, request.cwd, ...args].some((s) => s.includes("\0"))) {
      return { output: Buffer.alloc(0), error: `fork/exec ${path}: invalid argument` };
    }
    const waiting = turn();
    if (waiting !== undefined) await waiting;
    return new Promise((resolve) => {
      const fds = new Int32Array(2);
      if (c.pipe2(fds, O_CLOEXEC) !== 0) {
        done();
        resolve({ output: Buffer.alloc(0), error: `fork/exec ${path}: ${errnoText(deps.errno())}` });
        return;
      }
      const [readEnd, writeEnd] = fds as unknown as [number, number];
      const { actions, kept } = fileActions(writeEnd, request.cwd);
      const attr = needsGroup(request) ? groupAttr : plainAttr;
      const pidOut = new Int32Array(1);
      const spawned = (rc: number) => {
        if (!kept) c.fileActionsDestroy(actions);
        c.close(writeEnd);
        // The write end closed first: a child started meanwhile copies every open descriptor until its exec, and would
        // hold this run's pipe open past the command's exit.
        done();
        if (rc !== 0) {
          c.close(readEnd);
          resolve({ output: Buffer.alloc(0), error: `fork/exec ${path}: ${errnoText(rc)}` });
          return;
        }
        void collectOutput(pidOut[0] as number, {
          fd: readEnd,
          request,
          libc: c,
          deps,
          readBuffer,
          exits,
          reap,
        }).then(resolve);
      };
      // On the thread pool: the calling thread waits until the child has exec'd, which is the slow part.
      try {
        c.spawn.async(
          pidOut,
          path,
          actions,
          attr,
          [request.argv0, ...args, null],
          envp,
          (error: unknown, rc: number) => spawned(error === null || error === undefined ? rc : EIO),
        );
      } catch {
        spawned(EIO);
      }
    });
  };
}

/**
 * Reads a started command's merged output in place from the non-blocking read end of its pipe, on its exit and by a
 * timer while it runs (a node stream per command cost ~90 µs of CPU, bench/webhook/README.md), and resolves once the
 * output has ended and the exit status is known. The timeout stops the command's process group.
 */
function collectOutput(
  pid: number,
  options: {
    fd: number;
    request: RunRequest;
    libc: ReturnType<typeof bindLibc>;
    deps: PosixSpawnDeps;
    readBuffer: Buffer;
    /** Where the SIGCHLD handler finds this pid's exit callback. */
    exits: Map<number, (status: number) => void>;
    reap: (pid: number) => boolean;
  },
): Promise<CommandResult> {
  const { fd, libc: c, deps, readBuffer, exits, reap } = options;
  const onOutput = options.request.onOutput;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let status: number | undefined;
    let eof = false;
    let settled = false;
    /** A streamed piece the reader has not taken yet: nothing more is read meanwhile (the pipe holds the rest). */
    let held = false;
    let poll: NodeJS.Timeout | undefined;
    c.fcntl(fd, F_SETFL, "int", O_NONBLOCK);
    let enlarged = false;
    /** Reads what is there; true when something was. */
    const drain = (): boolean => {
      let got = false;
      // At most 4 MiB at a time, then the event loop gets a turn: a command writing without pause (into a job's
      // file, say) must not hold the server up until it ends.
      for (let reads = 0; !eof && !held && reads < 64; reads++) {
        const n = Number(c.read(fd, readBuffer, READ_SIZE));
        if (n > 0) {
          if (!enlarged) {
            // Fewer wake-ups for a command that writes a lot, asked once it writes at all (most write little or
            // nothing); refused (EPERM) past the system's limit, which is fine.
            enlarged = true;
            c.fcntl(fd, F_SETPIPE_SZ, "int", PIPE_SIZE);
          }
          const chunk = Buffer.from(readBuffer.subarray(0, n));
          bytes += n;
          got = true;
          if (onOutput === undefined) chunks.push(chunk);
          else {
            const taken = onOutput(chunk);
            if (taken !== undefined) {
              held = true;
              // Read on as soon as the reader took it (a timer would add a millisecond per piece).
              void taken.finally(() => {
                held = false;
                clearTimeout(poll);
                check();
              });
            }
          }
          continue;
        }
        const errno = n < 0 ? deps.errno() : 0;
        if (errno === EINTR) continue;
        if (errno === EAGAIN) break;
        // End of output: every writer (the command and anything it left running) has closed the pipe, which Go's
        // CombinedOutput also waits for.
        eof = true;
        c.close(fd);
      }
      return got;
    };
    const stop = armStop(pid, options.request, deps.killGroup);
    const settle = () => {
      if (settled || status === undefined || !eof) return;
      settled = true;
      clearTimeout(poll);
      stop.disarm();
      const output = Buffer.concat(chunks);
      const error = exitError(status);
      let result: CommandResult = error === undefined ? { output } : { output, error };
      // Streamed output is not in `output`: its size is told instead.
      if (onOutput !== undefined) result = { ...result, outputBytes: bytes };
      resolve(stop.timedOut() ? { ...result, timedOut: true } : result);
    };
    // After the exit, a child another thread is starting may briefly hold a copy of the pipe's write end (until its
    // exec closes it): the end of output is then looked for every millisecond for a while.
    let quickChecks = 0;
    const check = () => {
      if (settled) return;
      const busy = drain();
      if (status === undefined) reap(pid);
      settle();
      if (settled || held) return;
      const soon = busy || (status !== undefined && quickChecks++ < QUICK_CHECKS);
      poll = setTimeout(check, soon ? 1 : DRAIN_MS);
    };
    exits.set(pid, (s) => {
      status = s;
      drain();
      settle();
      if (!settled && !held) {
        clearTimeout(poll);
        poll = setTimeout(check, 1);
      }
    });
    // Its exit may have come before it was listed here (then reaped now); its output is read at the exit, or by the
    // poll while it runs.
    if (!reap(pid)) poll = setTimeout(check, DRAIN_MS);
  });
}

/** Go's text for an errno number (`exec format error`), through node's name for it. */
function errnoText(errno: number): string {
  const name = Object.entries(constants.errno).find(([, n]) => n === errno)?.[0];
  return goErrnoText(Object.assign(new Error(`errno ${errno}`), { code: name }));
}

/** A `waitpid` status as Go's `*exec.ExitError` text (`exit status 3`, `signal: killed`); undefined for success. */
export function exitError(status: number): string | undefined {
  const signal = status & 0x7f;
  if (signal === 0) {
    const code = (status >> 8) & 0xff;
    return code === 0 ? undefined : `exit status ${code}`;
  }
  const name = Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
  return `signal: ${name === undefined ? `signal ${signal}` : goSignalText(name as NodeJS.Signals)}`;
}
