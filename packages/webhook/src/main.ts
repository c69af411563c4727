import type { Server } from "node:http";
import { goPathError, goSignalText } from "@local/go-compat/os-error";
import { systemdActivation } from "@local/go-compat/systemd-activation";
import type { CommandDeps } from "./command/command.js";
import {
  DuplicateHookError,
  LogFileError,
  NoHooksError,
  PidfileError,
  PrivilegeError,
  TlsError,
  UsageError,
  type WebhookError,
} from "./errors.js";
import { EXIT_OK, exitCodeFor } from "./exit-code.js";
import { type Config, defaultHttpMethods, parseFlags, usage } from "./flags.js";
import type { HandlerContext } from "./handler.js";
import { HookRegistry } from "./hooks/hook-registry.js";
import { loadHooksFile } from "./hooks/hooks-file.js";
import { checkRunOptions } from "./hooks/run-options.js";
import { listCipherSuites } from "./http/tls-ciphers.js";
import { startCertificateReloads, tlsVersion } from "./http/tls-setup.js";
import { type Runs, runsOrExitCode, settleRuns } from "./jobs/open-jobs.js";
import { listenAndDropPrivileges, servingUrl } from "./listener.js";
import { goLogStamp, Logger } from "./logger.js";
import { HookMetrics } from "./metrics.js";
import { createPidfile } from "./pidfile.js";
import { TrustedProxies } from "./request/client-address.js";

/** How long a shutdown waits for each pid file or socket step before it exits regardless. */
const FILE_STEP_DEADLINE_MS = 2000;

/** The version `-version` prints: that of the Debian/Ubuntu package this replaces (2.8.1/2.8.2's features too). */
export const VERSION = "2.8.0";

/** Streams and effects `main` uses; `cli.ts` passes the real ones. */
export interface MainDeps {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly command: Omit<CommandDeps, "log" | "env" | "cwd">;
  /** Subscribes to a signal; used for reload (SIGHUP, SIGUSR1) and shutdown (SIGINT, SIGTERM). */
  readonly onSignal: (signal: NodeJS.Signals, handler: () => void) => void;
  /** Writes the pid file; removes it on shutdown. */
  readonly pid: number;
  /**
   * Writes a file (mode 0600) atomically (a temporary file beside it, then a rename), creating missing parent
   * directories (0755) as upstream's pidfile package.
   */
  readonly writeFile: (path: string, data: string) => Promise<void>;
  /** A file's text, or undefined when it cannot be read or is not a regular file. */
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly removeFile: (path: string) => Promise<void>;
  /** Watches a directory; calls back once per burst of changes to a file in it, with its base name. */
  readonly watch: (dir: string, onChange: (file: string) => void) => void;
  readonly exists: (path: string) => Promise<boolean>;
  /** A path with every symbolic link resolved (a hooks file that is a link is watched where it points too). */
  readonly realpath: (path: string) => Promise<string>;
  readonly sleep: (ms: number) => Promise<void>;
  /** Opens `-logfile` for appending. */
  readonly openLog: (path: string) => Promise<{ write(s: string): unknown }>;
  /** `-setuid`/`-setgid`: switches the group, then the user. */
  readonly dropPrivileges: (uid: number, gid: number) => void;
  /** Ends the process (upstream exits at once on SIGINT/SIGTERM). */
  readonly exit: (code: number) => void;
  readonly now: () => Date;
  /** The path a passed Unix socket is bound to (socket activation's start-up line), when it can be found. */
  readonly socketPath: (fd: number) => string | undefined;
}

/**
 * Runs webhook: parses Go-style flags, loads the hooks files, serves them. Resolves with an exit code for the cases
 * that end before serving (version, usage, load failure); while serving it resolves only when the server closes.
 * The order is upstream's: listen, drop privileges, pid file, start-up lines, hooks, `serving hooks on`.
 */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  const config = configOrExitCode(argv, deps);
  if (typeof config === "number") return config;
  // Socket activation (upstream 2.8.2): the variables leave the environment here, before hooks files are read as
  // templates and before any command runs, as go-systemd's Files(true) unsets them.
  const activation = systemdActivation(deps.env, deps.pid);
  const env = activation.env;
  const logger = new Logger({
    verbose: config.verbose || config.debug || config.logfile !== "",
    format: config.logFormat === "json" ? "json" : "text",
    now: deps.now,
    out: deps.stderr,
  });
  const log = (line: string) => logger.log(line);
  const logFileFailure = await openLogFile(config, { deps, logger });
  if (logFileFailure !== undefined) return logFileFailure;
  const report = (m: string) => deps.stderr.write(logger.format(m));
  const runs = runsOrExitCode(config, { now: deps.now, log, report });
  if (typeof runs === "number") return runs;
  // -metrics (beyond upstream, off by default so the drop-in is unchanged).
  const metrics: HookMetrics | undefined = config.metrics
    ? new HookMetrics({ hooksLoaded: (): number => registry.hooks().size })
    : undefined;
  const registry: HookRegistry = new HookRegistry({
    load: async (file) =>
      checkRunOptions(await loadHooksFile(file, { template: config.template, env }), { jobs: runs.jobs }),
    log,
    ...(metrics === undefined ? {} : { onReloadFailure: () => metrics.reloadFailed() }),
    // Upstream's removeHooks: log.Fatalln on stdout, exit 1 at once (the pid file stays, as Go's defer never runs).
    onNoHooksLeft: () => {
      if (logger.verbose || config.nopanic) return;
      const error = new NoHooksError("run");
      deps.stdout.write(logger.format(error.message));
      deps.exit(exitCodeFor(error));
    },
  });
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const activatedFd = activation.fds[0];
  const listening = await listenAndDropPrivileges(config, {
    deps,
    logger,
    activation,
    handler: handlerContext(config, { deps, env, logger, registry, ready, metrics, runs }),
    nodeHttpOnly: env.WEBHOOK_NODE_HTTP === "1",
  });
  if (typeof listening === "number") return listening;
  const { server, tlsError, tlsSettingsError } = listening;
  // A fatal error after the listener opened: reported where upstream reports it, the listener closed.
  const fatal = (error: WebhookError, where: "log" | "stdout") => {
    if (where === "log") log(error.message);
    else deps[where].write(logger.format(error.message));
    server?.close();
    return exitCodeFor(error);
  };
  let pidfileWrite: Promise<unknown> = Promise.resolve();
  const shutdown = shutdownOnSignals(config, {
    deps,
    log,
    server,
    pidfileWrite: () => pidfileWrite,
    runs,
    // Upstream removes the -socket path even when systemd passed the socket and -socket was ignored, which would
    // delete the socket unit's file; ours removes only a socket it bound itself.
    boundSocket: activatedFd === undefined ? config.socket : "",
  });
  if (config.pidfile !== "") {
    try {
      // Upstream starts its signal watcher after writing the pid file; ours starts as the write begins, so a
      // SIGTERM arriving as the file appears (node reaches this line later than Go) still removes it.
      await createPidfile(config.pidfile, {
        pid: deps.pid,
        deps,
        beforeWrite: (write) => {
          pidfileWrite = write;
          shutdown();
        },
      });
    } catch (error) {
      // Logged only, so silent without -verbose: upstream has discarded its log by then.
      if (error instanceof PidfileError) return fatal(error, "log");
      throw error;
    }
  }
  log(`version ${VERSION} starting`);
  log("setting up os signal watcher");
  // From now on (as upstream, before the hooks load) SIGINT/SIGTERM remove the pid file.
  shutdown();
  try {
    await registry.loadAll(config.hooks.length > 0 ? config.hooks : ["hooks.json"]);
  } catch (error) {
    // Upstream's log.Fatalf: shown only where the log goes (nowhere without -verbose).
    if (error instanceof DuplicateHookError) return fatal(error, "log");
    throw error;
  }
  // Upstream's watcher goroutine reports ready once the loading is under way.
  log("os signal watcher ready");
  if (registry.hooks().size === 0 && !logger.verbose && !config.nopanic)
    return fatal(new NoHooksError(), "stdout");
  // Upstream sets up its watchers before its TLS settings and its `serving hooks on` line.
  if (config.hotreload) registry.watch(deps);
  if (tlsSettingsError !== undefined) return fatal(tlsSettingsError, "log");
  log(`serving hooks on ${servingUrl(config, { server, activatedFd, socketPath: deps.socketPath })}`);
  if (server === undefined) {
    // Upstream logs ServeTLS's error and returns from main: exit 0.
    log(tlsError?.message ?? "no server");
    if (config.pidfile !== "") await deps.removeFile(config.pidfile).catch(() => undefined);
    return EXIT_OK;
  }
  markReady();
  const reloadCertificate = startCertificateReloads(config, { server, deps: { ...deps, log } });
  for (const signal of ["SIGHUP", "SIGUSR1"] as const) {
    deps.onSignal(signal, () => {
      log(`caught ${signal === "SIGHUP" ? "HUP" : "USR1"} signal`);
      void registry.reloadAll().then(reloadCertificate);
    });
  }
  return new Promise((resolve) => server.on("close", () => resolve(EXIT_OK)));
}

/**
 * The flags, or the exit code of a run that ends before anything starts: usage errors, `-help`, `-version`,
 * `-list-cipher-suites`, and `-setuid` without `-setgid` (or the reverse).
 */
function configOrExitCode(argv: readonly string[], deps: MainDeps): Config | number {
  let config: Config;
  try {
    config = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    deps.stderr.write(`${error.message}\n${usage()}`);
    return exitCodeFor(error);
  }
  if (config.help) {
    deps.stderr.write(usage());
    return EXIT_OK;
  }
  if (config.version) {
    deps.stdout.write(`webhook version ${VERSION}\n`);
    return EXIT_OK;
  }
  if (config.listCipherSuites) {
    try {
      tlsVersion(config.tlsMinVersion);
    } catch (error) {
      if (!(error instanceof TlsError)) throw error;
      // Go's log.Fatalln on the standard logger: a date, no "[webhook]" prefix.
      deps.stderr.write(`${goLogStamp(deps.now())} ${error.message}\n`);
      return exitCodeFor(error);
    }
    deps.stdout.write(listCipherSuites(config.tlsMinVersion));
    return EXIT_OK;
  }
  if ((config.setuid !== 0) !== (config.setgid !== 0)) {
    const error = new PrivilegeError("error: setuid and setgid options must be used together");
    deps.stdout.write(`${error.message}\n`);
    return exitCodeFor(error);
  }
  return config;
}

/** `-logfile`: the log goes there from now on; undefined, or the exit code when it cannot be opened. */
async function openLogFile(
  config: Config,
  parts: { deps: MainDeps; logger: Logger },
): Promise<number | undefined> {
  if (config.logfile === "") return undefined;
  try {
    parts.logger.setOutput(await parts.deps.openLog(config.logfile));
    return undefined;
  } catch (cause) {
    const error = new LogFileError(
      `error opening log file ${JSON.stringify(config.logfile)}: ${goPathError(cause as NodeJS.ErrnoException)}`,
      { cause },
    );
    // Upstream reports start-up failures even without -verbose.
    parts.deps.stderr.write(parts.logger.format(error.message));
    return exitCodeFor(error);
  }
}

/** What the request handler sees: the registry's hooks and the server-wide settings. */
function handlerContext(
  config: Config,
  parts: {
    deps: MainDeps;
    env: Readonly<Record<string, string | undefined>>;
    logger: Logger;
    registry: HookRegistry;
    ready: Promise<void>;
    metrics: HookMetrics | undefined;
    runs: Runs;
  },
): HandlerContext {
  const { deps, env, logger, registry, ready, metrics, runs } = parts;
  const log = (line: string) => logger.log(line);
  return {
    hooks: () => registry.hooks(),
    ready,
    urlPrefix: config.urlprefix,
    headers: config.headers,
    defaultMethods: defaultHttpMethods(config.httpMethods),
    command: { ...deps.command, log, env, cwd: deps.cwd, verbose: logger.verbose },
    log,
    verbose: logger.verbose,
    debug: config.debug,
    explainRules: config.explainRules,
    writeRaw: (text) => logger.writeRaw(text),
    now: deps.now,
    running: new Map(),
    ...runs,
    maxMultipartMem: config.maxMultipartMem,
    ...(metrics === undefined ? {} : { metrics }),
    ...(config.trustedProxies.length === 0
      ? {}
      : { trustedProxies: new TrustedProxies(config.trustedProxies) }),
  };
}

/**
 * SIGINT/SIGTERM: log, remove the pid file (and a named socket), stop accepting, let requests in flight get their
 * answers for at most 5 s, exit 0. Returns a function that subscribes once, however often it is called.
 */
function shutdownOnSignals(
  config: Config,
  parts: {
    deps: MainDeps;
    log: (line: string) => void;
    server: Server | undefined;
    pidfileWrite: () => Promise<unknown>;
    boundSocket: string;
    runs: Runs;
  },
): () => void {
  const { deps, log, server } = parts;
  let watching = false;
  return () => {
    if (watching) return;
    watching = true;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      deps.onSignal(signal, () => {
        log(`caught ${goSignalText(signal)} signal; exiting`);
        // Each file step has a deadline: a file system that never answers must not keep the process alive.
        const settled = (work: Promise<unknown>) =>
          Promise.race([work.catch(() => undefined), deps.sleep(FILE_STEP_DEADLINE_MS)]);
        void (async () => {
          if (config.pidfile !== "") {
            await settled(parts.pidfileWrite());
            await settled(deps.removeFile(config.pidfile));
          }
          // A named socket is removed so the next start can bind it again (upstream signals.go).
          const socket = parts.boundSocket;
          if (socket !== "" && !socket.startsWith("@")) await settled(deps.removeFile(socket));
          if (server === undefined) return;
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          await settleRuns(parts.runs, { closed, grace: deps.sleep(5000) });
        })().finally(() => deps.exit(EXIT_OK));
      });
    }
  };
}
