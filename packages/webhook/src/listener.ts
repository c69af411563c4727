import type { Server } from "node:http";
import { goErrnoText } from "@local/go-compat/os-error";
import { ListenError, PrivilegeError, TlsError, type WebhookError } from "./errors.js";
import { exitCodeFor } from "./exit-code.js";
import type { Config } from "./flags.js";
import type { HandlerContext } from "./handler.js";
import { startServer } from "./http/server.js";
import { checkTlsSettings } from "./http/tls-setup.js";
import type { Logger } from "./logger.js";

/** What opening the listener needs from outside: where start-up errors go, and the privilege switch. */
export interface ListenDeps {
  readonly stderr: { write(s: string): unknown };
  /** `-setuid`/`-setgid`: switches the group, then the user. */
  readonly dropPrivileges: (uid: number, gid: number) => void;
}

/** Upstream's refusal of `-socket` with `-setuid`/`-setgid` (platform_unix.go), two spaces and all. */
const SOCKET_WITH_PRIVILEGE_DROP =
  "-setuid and -setgid options are not compatible with -socket.  If you need to bind a socket as root but run webhook as a different user, consider using systemd activation";

/** The listener, or why there is none yet: TLS errors are reported later, where upstream reports them. */
export interface Listening {
  readonly server: Server | undefined;
  /** The certificate or key could not be loaded: logged after `serving hooks on`, exit 0 (upstream's ServeTLS). */
  readonly tlsError: TlsError | undefined;
  /** A bad `-tls-min-version` or `-cipher-suites`: fatal once the hooks are loaded. */
  readonly tlsSettingsError: TlsError | undefined;
}

/**
 * Upstream opens the listener (and drops privileges) before anything else is logged, so a privileged port can be
 * bound and start-up errors come first. Resolves with the exit code of a failure reported at once.
 */
export async function listenAndDropPrivileges(
  config: Config,
  parts: {
    deps: ListenDeps;
    logger: Logger;
    activation: { readonly fds: readonly number[]; readonly count: number };
    handler: HandlerContext;
    nodeHttpOnly: boolean;
  },
): Promise<Listening | number> {
  const { deps, logger } = parts;
  let server: Server | undefined;
  const fatal = (error: WebhookError) => {
    deps.stderr.write(logger.format(error.message));
    server?.close();
    return exitCodeFor(error);
  };
  let tlsError: TlsError | undefined;
  let tlsSettingsError: TlsError | undefined;
  try {
    if (config.secure) checkTlsSettings(config);
  } catch (error) {
    if (!(error instanceof TlsError)) throw error;
    tlsSettingsError = error;
  }
  // Checked on the count alone, before anything is spent on it (LISTEN_FDS=100000000 is refused at once).
  if (parts.activation.count > 1) {
    const message = `received ${parts.activation.count} sockets from systemd, but only 1 is supported`;
    return fatal(new ListenError(`error listening on socket: ${message}`));
  }
  const activatedFd = parts.activation.fds[0];
  if (activatedFd === undefined && config.socket !== "" && (config.setuid !== 0 || config.setgid !== 0)) {
    // 2.8.1+ refuse -socket with a privilege drop (platform_unix.go trySocketListener); the drop is still tried
    // after the failed listen, so a user who may not switch gets its line too (webhook.go's logQueue).
    const refusal = new ListenError(`error listening on socket: ${SOCKET_WITH_PRIVILEGE_DROP}`);
    if (config.setuid !== 0) {
      try {
        deps.dropPrivileges(config.setuid, config.setgid);
      } catch (cause) {
        deps.stderr.write(logger.format(refusal.message));
        const message = `error dropping privileges: ${goErrnoText(cause as NodeJS.ErrnoException)}`;
        return fatal(new PrivilegeError(message, { cause }));
      }
    }
    return fatal(refusal);
  }
  try {
    if (tlsSettingsError !== undefined) throw tlsSettingsError;
    server = await startServer(config, parts.handler, {
      // Every request through node:http (the wire reader's reference, for comparisons and tests).
      nodeHttpOnly: parts.nodeHttpOnly,
      ...(activatedFd === undefined ? {} : { fd: activatedFd }),
    });
  } catch (error) {
    if (error === tlsSettingsError) {
      // Reported after loading the hooks, where upstream builds its TLS settings.
    } else if (error instanceof TlsError) tlsError = error;
    else if (error instanceof ListenError) {
      const where = activatedFd === undefined ? "port" : "socket";
      return fatal(new ListenError(`error listening on ${where}: ${error.message}`));
    } else throw error;
  }
  if (config.setuid !== 0) {
    // After listening, as upstream, so a privileged port can be bound first.
    try {
      deps.dropPrivileges(config.setuid, config.setgid);
    } catch (cause) {
      const message = `error dropping privileges: ${goErrnoText(cause as NodeJS.ErrnoException)}`;
      return fatal(new PrivilegeError(message, { cause }));
    }
  }
  return { server, tlsError, tlsSettingsError };
}

/**
 * The URL upstream logs: `-ip` and `-port` as given (`-port 0` as the port bound), or the socket path; a socket systemd passed as
 * Go's `Addr().String()` gives it (`[::]:9000`, or `{unix:/run/webhook.sock}`).
 */
export function servingUrl(
  config: Config,
  listener: {
    server: Server | undefined;
    activatedFd: number | undefined;
    socketPath: (fd: number) => string | undefined;
  },
): string {
  const address = listener.server?.address();
  let where: string;
  if (listener.activatedFd !== undefined) {
    where =
      typeof address === "object" && address !== null
        ? `${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`
        : `{unix:${listener.socketPath(listener.activatedFd) ?? ""}}`;
  } else {
    // Upstream prints the address it asked for, `-ip` and `-port` as given (`localhost:9000`, `:9000`), or as its
    // -socket (#703, 2.8.1) Go's `{unix:path}` form. With `-port 0` it prints `:0`, which names no port: ours gives
    // the port the kernel chose, so a script (or a test, on port 0) can find the server.
    const port =
      config.port === 0 && typeof address === "object" && address !== null ? address.port : config.port;
    where = config.socket !== "" ? `{unix:${config.socket}}` : `${config.ip}:${port}`;
  }
  return `${config.secure ? "https" : "http"}://${where}/${config.urlprefix}${config.urlprefix === "" ? "" : "/"}{id}`;
}
