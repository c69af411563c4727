/** Go's `syscall.Errno` texts for the errors node reports by code. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied",
  EADDRNOTAVAIL: "cannot assign requested address",
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EEXIST: "file exists",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  // What starting a program can fail with (Go's zerrors_linux texts).
  ENOEXEC: "exec format error",
  E2BIG: "argument list too long",
  ETXTBSY: "text file busy",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  ENOMEM: "cannot allocate memory",
  EPERM: "operation not permitted",
  EINVAL: "invalid argument",
  EMFILE: "too many open files",
  EAGAIN: "resource temporarily unavailable",
  EIO: "input/output error",
};

/** Go's `syscall.Signal` texts on Linux, by node's signal name. */
const SIGNAL_TEXT: Readonly<Partial<Record<NodeJS.Signals, string>>> = {
  SIGHUP: "hangup",
  SIGINT: "interrupt",
  SIGQUIT: "quit",
  SIGILL: "illegal instruction",
  SIGTRAP: "trace/breakpoint trap",
  SIGABRT: "aborted",
  SIGBUS: "bus error",
  SIGFPE: "floating point exception",
  SIGKILL: "killed",
  SIGUSR1: "user defined signal 1",
  SIGSEGV: "segmentation fault",
  SIGUSR2: "user defined signal 2",
  SIGPIPE: "broken pipe",
  SIGALRM: "alarm clock",
  SIGTERM: "terminated",
  SIGSTKFLT: "stack fault",
  SIGCHLD: "child exited",
  SIGCONT: "continued",
  SIGSTOP: "stopped (signal)",
  SIGTSTP: "stopped",
  SIGTTIN: "stopped (tty input)",
  SIGTTOU: "stopped (tty output)",
  SIGURG: "urgent I/O condition",
  SIGXCPU: "CPU time limit exceeded",
  SIGXFSZ: "file size limit exceeded",
  SIGVTALRM: "virtual timer expired",
  SIGPROF: "profiling timer expired",
  SIGWINCH: "window changed",
  SIGIO: "I/O possible",
  SIGPWR: "power failure",
  SIGSYS: "bad system call",
};

/** The text Go's `*exec.ExitError` prints after `signal: ` (`killed`, `terminated`). */
export function goSignalText(signal: NodeJS.Signals): string {
  return SIGNAL_TEXT[signal] ?? signal;
}

/** The errno text Go prints (`no such file or directory`), or node's message for codes not listed. */
export function goErrnoText(error: NodeJS.ErrnoException): string {
  return ERRNO_TEXT[error.code ?? ""] ?? error.message;
}

/** Go's `*PathError` text: `open /x/y: no such file or directory` (operation and path as node reports them). */
export function goPathError(error: NodeJS.ErrnoException, op?: string): string {
  return `${op ?? error.syscall ?? "open"} ${error.path ?? ""}: ${goErrnoText(error)}`;
}
