// systemd socket activation as upstream 2.8.2 takes it (platform_unix.go trySocketListener, through
// github.com/coreos/go-systemd/v22/activation Files(true)): the listening sockets are the descriptors from 3 on,
// `LISTEN_FDS` of them, when `LISTEN_PID` is this process; the three variables are removed from the environment
// either way, so hook commands never see them. Docs: upstream docs/Systemd-Activation.md.

/** sd_listen_fds(3) `SD_LISTEN_FDS_START`. */
const LISTEN_FDS_START = 3;

/** The variables go-systemd unsets whether or not they were meant for this process. */
const ACTIVATION_VARIABLES = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] as const;

/**
 * The most descriptors listed: more than any socket unit passes. A larger `LISTEN_FDS` (a hostile or broken
 * environment: 100000000) is reported in `count` with no descriptor listed, so no memory is spent on it.
 */
export const MAX_LISTEN_FDS = 1024;

/** What the environment says: the passed descriptors (none when not activated), and the environment without the variables. */
export interface Activation {
  readonly fds: readonly number[];
  /** How many descriptors `LISTEN_FDS` says were passed (0 when not activated); more than `fds` holds past {@link MAX_LISTEN_FDS}. */
  readonly count: number;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The descriptors systemd passed to process `pid`, as go-systemd's `Files`: none unless `LISTEN_PID` is `pid` and
 * `LISTEN_FDS` a positive number (Go's strconv.Atoi: optional sign, decimal digits).
 */
export function systemdActivation(
  env: Readonly<Record<string, string | undefined>>,
  pid: number,
): Activation {
  const rest = { ...env };
  for (const name of ACTIVATION_VARIABLES) delete rest[name];
  const listenPid = goAtoi(env.LISTEN_PID);
  const count = goAtoi(env.LISTEN_FDS);
  if (listenPid !== pid || count === undefined || count <= 0) return { fds: [], count: 0, env: rest };
  if (count > MAX_LISTEN_FDS) return { fds: [], count, env: rest };
  return { fds: Array.from({ length: count }, (_v, i) => LISTEN_FDS_START + i), count, env: rest };
}

/** Go's strconv.Atoi for the values systemd writes; undefined where Atoi fails. */
function goAtoi(text: string | undefined): number | undefined {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The path a passed Unix socket is bound to, as Go's `UnixListener.Addr()` gives it (`@name` for an abstract one),
 * found as Linux shows it: the descriptor's inode in /proc/self/fd, its path in /proc/net/unix. Undefined when the
 * descriptor is no bound Unix socket. node's `server.address()` is null for a listener opened on a descriptor.
 */
export function unixSocketPath(
  fd: number,
  fs: { readlink(path: string): string; readFile(path: string): string },
): string | undefined {
  let inode: string | undefined;
  try {
    inode = /^socket:\[(\d+)\]$/.exec(fs.readlink(`/proc/self/fd/${fd}`))?.[1];
  } catch {
    return undefined;
  }
  if (inode === undefined) return undefined;
  let table: string;
  try {
    table = fs.readFile("/proc/net/unix");
  } catch {
    return undefined;
  }
  // Num RefCount Protocol Flags Type St Inode Path
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[6] === inode) return fields.slice(7).join(" ") || undefined;
  }
  return undefined;
}
