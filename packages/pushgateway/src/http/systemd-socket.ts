/** The first file descriptor systemd passes (sd_listen_fds(3) `SD_LISTEN_FDS_START`). */
const LISTEN_FDS_START = 3;

/**
 * The listening sockets systemd passed to this process (socket activation, sd_listen_fds(3), what
 * exporter-toolkit's `--web.systemd-socket` reads through coreos/go-systemd `activation.Listeners`): file
 * descriptors 3 to 3+`LISTEN_FDS`-1, but only when `LISTEN_PID` names this process; none otherwise.
 */
export function systemdListenFds(env: Readonly<Record<string, string | undefined>>, pid: number): number[] {
  if (env.LISTEN_PID === undefined || Number(env.LISTEN_PID) !== pid) return [];
  const count = Number(env.LISTEN_FDS ?? "");
  if (!Number.isInteger(count) || count < 1) return [];
  return Array.from({ length: count }, (_v, i) => LISTEN_FDS_START + i);
}
