/** A writable stream as toolmgr uses it; `isTTY` decides between progress display and plain lines. */
export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Standard output and error, injected so tests capture them. */
export interface Io {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
}

/** The running system as a value (aqua's runtime), so tests can act as another platform or home. */
export interface Runtime {
  /** `process.platform`. */
  readonly platform: string;
  /** `process.arch`. */
  readonly arch: string;
  /** The user's home directory. */
  readonly homedir: string;
}

/** Starts a child process (`child_process.spawn`), for `exec`. */
export type Spawn = typeof import("node:child_process").spawn;

/** This process and others, for the store's markers of who is changing it (store-activity.ts). */
export interface Processes {
  /** This process's id. */
  readonly pid: number;
  /** Whether a process with this id runs (on this machine). */
  isRunning(pid: number): boolean;
}

/** Subscribes to a termination signal of this process; returns the unsubscribe function. */
export type OnSignal = (signal: "SIGINT" | "SIGTERM", handler: () => void) => () => void;

/**
 * Every side effect a command may have reaches it through this object; `cli.ts` builds the real one, tests build
 * fakes (a loopback code host for `fetch`, a temp directory for `cwd` and `TOOLMGR_HOME`).
 */
export interface Deps {
  readonly io: Io;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly fetch: typeof fetch;
  readonly now: () => Date;
  readonly runtime: Runtime;
  readonly spawn: Spawn;
  readonly onSignal: OnSignal;
  readonly processes: Processes;
  /**
   * How to start this toolmgr again (`[node, script]`), written into the shims for the project files they hand
   * over to `toolmgr exec`. Absent: `toolmgr` from `PATH`.
   */
  readonly launcher?: readonly string[];
}
