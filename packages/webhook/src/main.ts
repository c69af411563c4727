import type { Server } from "node:http";
import { basename, dirname } from "node:path";
import type { CommandDeps } from "./command/command.js";
import { HooksFileError, ListenError, TlsError, UsageError } from "./errors.js";
import { type Config, parseFlags, usage } from "./flags.js";
import { goErrnoText, goPathError } from "./go/os-error.js";
import type { Hook } from "./hooks/hook.js";
import { loadHooksFile } from "./hooks/hooks-file.js";
import { checkTlsSettings, startServer, tlsVersion } from "./http/server.js";
import { listCipherSuites } from "./http/tls-ciphers.js";

/** The version `-version` prints: that of the Debian/Ubuntu package this replaces (research §0); features of 2.8.1/2.8.2 are a superset. */
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
  /** Writes a file (mode 0600), creating missing parent directories (0755), as upstream's pidfile package. */
  readonly writeFile: (path: string, data: string) => Promise<void>;
  /** A file's text, or undefined when it cannot be read. */
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly removeFile: (path: string) => Promise<void>;
  /** Watches a directory; calls back once per burst of changes to a file in it, with its base name. */
  readonly watch: (dir: string, onChange: (file: string) => void) => void;
  readonly exists: (path: string) => Promise<boolean>;
  readonly sleep: (ms: number) => Promise<void>;
  /** Opens `-logfile` for appending. */
  readonly openLog: (path: string) => Promise<{ write(s: string): unknown }>;
  /** `-setuid`/`-setgid`: switches the group, then the user. */
  readonly dropPrivileges: (uid: number, gid: number) => void;
  /** Ends the process (upstream exits at once on SIGINT/SIGTERM). */
  readonly exit: (code: number) => void;
  readonly now: () => Date;
}

/**
 * Runs webhook: parses Go-style flags, loads the hooks files, serves them. Resolves with an exit code for the cases
 * that end before serving (version, usage, load failure); while serving it resolves only when the server closes.
 */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  let config: Config;
  try {
    config = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    deps.stderr.write(`${error.message}\n${usage()}`);
    return 2;
  }
  if (config.help) {
    deps.stderr.write(usage());
    return 0;
  }
  if (config.version) {
    deps.stdout.write(`webhook version ${VERSION}\n`);
    return 0;
  }
  if (config.listCipherSuites) {
    try {
      tlsVersion(config.tlsMinVersion);
    } catch (error) {
      if (!(error instanceof TlsError)) throw error;
      // Go's log.Fatalln on the standard logger: a date, no "[webhook]" prefix.
      deps.stderr.write(`${goLogStamp(deps.now())} ${error.message}\n`);
      return 1;
    }
    deps.stdout.write(listCipherSuites(config.tlsMinVersion));
    return 0;
  }
  if ((config.setuid !== 0) !== (config.setgid !== 0)) {
    deps.stdout.write("error: setuid and setgid options must be used together\n");
    return 1;
  }
  const verbose = config.verbose || config.debug || config.logfile !== "";
  let out: { write(s: string): unknown } = deps.stderr;
  const format = (line: string) => {
    const now = deps.now();
    if (config.logFormat === "json") return `${JSON.stringify({ time: now.toISOString(), msg: line })}\n`;
    return `[webhook] ${goLogStamp(now)} ${line}\n`;
  };
  const log = (line: string) => {
    if (verbose) out.write(format(line));
  };
  if (config.logfile !== "") {
    try {
      out = await deps.openLog(config.logfile);
    } catch (error) {
      // Upstream reports start-up failures even without -verbose, then exits 1.
      deps.stderr.write(
        format(
          `error opening log file ${JSON.stringify(config.logfile)}: ${goPathError(error as NodeJS.ErrnoException)}`,
        ),
      );
      return 1;
    }
  }
  const defaultMethods =
    config.httpMethods === ""
      ? []
      : config.httpMethods
          .replace(/\s+/g, "")
          .toUpperCase()
          .split(",")
          .filter((m) => m !== "");
  // Upstream opens the listener (and drops privileges) before anything else is logged, so a privileged port can
  // be bound and start-up errors come first.
  let hooks = new Map<string, Hook>();
  let server: Server | undefined;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  let tlsError: TlsError | undefined;
  let tlsSettingsError: TlsError | undefined;
  try {
    if (config.secure) checkTlsSettings(config);
  } catch (error) {
    if (!(error instanceof TlsError)) throw error;
    tlsSettingsError = error;
  }
  try {
    if (tlsSettingsError !== undefined) throw tlsSettingsError;
    server = await startServer(
      config,
      {
        hooks: () => hooks,
        ready,
        urlPrefix: config.urlprefix,
        headers: config.headers,
        defaultMethods,
        command: { ...deps.command, log, env: deps.env, cwd: deps.cwd },
        log,
        verbose,
        debug: config.debug,
        explainRules: config.explainRules,
        writeRaw: (text) => out.write(text),
        now: deps.now,
        running: new Map(),
        maxMultipartMem: config.maxMultipartMem,
      },
      // Every request through node:http (the wire reader's reference, for comparisons and tests).
      { nodeHttpOnly: deps.env.WEBHOOK_NODE_HTTP === "1" },
    );
  } catch (error) {
    if (error === tlsSettingsError) {
      // Reported after loading the hooks, where upstream builds its TLS settings.
    } else if (error instanceof TlsError) tlsError = error;
    else if (error instanceof ListenError) {
      deps.stderr.write(format(`error listening on port: ${error.message}`));
      return 1;
    } else throw error;
  }
  if (config.setuid !== 0) {
    // After listening, as upstream, so a privileged port can be bound first.
    try {
      deps.dropPrivileges(config.setuid, config.setgid);
    } catch (error) {
      deps.stderr.write(format(`error dropping privileges: ${goErrnoText(error as NodeJS.ErrnoException)}`));
      server?.close();
      return 1;
    }
  }
  // Upstream starts its signal watcher after writing the pid file; ours starts just before the write, so a SIGTERM
  // arriving as the file appears (node reaches this line later than Go) still removes it.
  let pidfileWrite: Promise<unknown> = Promise.resolve();
  let watchingSignals = false;
  const watchSignals = () => {
    if (watchingSignals) return;
    watchingSignals = true;
    const listening = server;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      deps.onSignal(signal, () => {
        log(`caught ${signal === "SIGINT" ? "interrupt" : "terminated"} signal; exiting`);
        void (async () => {
          if (config.pidfile !== "") {
            await pidfileWrite.catch(() => undefined);
            await deps.removeFile(config.pidfile).catch(() => undefined);
          }
          // A named socket is removed so the next start can bind it again (upstream signals.go).
          if (config.socket !== "" && !config.socket.startsWith("@"))
            await deps.removeFile(config.socket).catch(() => undefined);
          if (listening === undefined) return deps.exit(0);
          // Graceful: stop accepting, let requests in flight get their answers, but never wait past 5 s.
          const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
          listening.closeIdleConnections();
          await Promise.race([closed, deps.sleep(5000)]);
          deps.exit(0);
        })();
      });
    }
  };
  if (config.pidfile !== "") {
    // Upstream's pidfile.New, before anything else is logged: a pid file naming a live process (/proc/<pid>) is
    // fatal, else it is (re)written. Fatal errors go to the log only, so they are silent without -verbose.
    const previous = (await deps.readFile(config.pidfile))?.trim() ?? "";
    if (/^[+-]?\d+$/.test(previous) && (await deps.exists(`/proc/${Number(previous)}`))) {
      log(
        `Error creating pidfile: pid file found, ensure webhook is not running or delete ${config.pidfile}`,
      );
      server?.close();
      return 1;
    }
    watchSignals();
    pidfileWrite = deps.writeFile(config.pidfile, String(deps.pid));
    try {
      await pidfileWrite;
    } catch (error) {
      log(`Error creating pidfile: ${goPathError(error as NodeJS.ErrnoException)}`);
      server?.close();
      return 1;
    }
  }
  log(`version ${VERSION} starting`);
  log("setting up os signal watcher");
  // From now on (as upstream, before the hooks load) SIGINT/SIGTERM remove the pid file.
  watchSignals();
  const files = config.hooks.length > 0 ? config.hooks : ["hooks.json"];
  const byFile = new Map<string, Hook[]>();
  for (const file of files) {
    log(`attempting to load hooks from ${file}`);
    try {
      const hooks = await loadHooksFile(file, { template: config.template, env: deps.env });
      log(`found ${hooks.length} hook(s) in file`);
      for (const hook of hooks) {
        for (const other of byFile.values()) {
          if (other.some((h) => h.id === hook.id)) {
            // Upstream's log.Fatalf: shown only where the log goes (nowhere without -verbose), exit 1.
            log(duplicateIdError(hook.id));
            server?.close();
            return 1;
          }
        }
        log(`\tloaded: ${hook.id}`);
      }
      byFile.set(file, hooks);
    } catch (error) {
      if (!(error instanceof HooksFileError)) throw error;
      log(`couldn't load hooks from file! ${error.message}`);
    }
  }
  // Upstream's watcher goroutine reports ready once the loading is under way.
  log("os signal watcher ready");
  hooks = indexHooks(byFile);
  if (hooks.size === 0 && !verbose && !config.nopanic) {
    deps.stdout.write(
      format(
        `couldn't load any hooks from file!\naborting webhook execution since the -verbose flag is set to false.\nIf, for some reason, you want webhook to start without the hooks, either use -verbose flag, or -nopanic`,
      ),
    );
    server?.close();
    return 1;
  }
  // Upstream's `reloadHooks`: a file with a duplicate id is refused whole, the previous hooks stay.
  const reload = async (file: string) => {
    log(`attempting to reload hooks from ${file}`);
    let fresh: Hook[];
    try {
      fresh = await loadHooksFile(file, { template: config.template, env: deps.env });
    } catch (error) {
      log(`couldn't load hooks from file! ${(error as Error).message}`);
      return;
    }
    log(`found ${fresh.length} hook(s) in file`);
    const elsewhere = new Set(
      [...byFile].filter(([f]) => f !== file).flatMap(([, list]) => list.map((h) => h.id)),
    );
    const seen = new Set<string>();
    for (const hook of fresh) {
      if (elsewhere.has(hook.id) || seen.has(hook.id)) {
        log(duplicateIdError(hook.id));
        log("reverting hooks back to the previous configuration");
        return;
      }
      seen.add(hook.id);
      log(`\tloaded: ${hook.id}`);
    }
    byFile.set(file, fresh);
    hooks = indexHooks(byFile);
  };
  const remove = (file: string) => {
    const removed = byFile.get(file) ?? [];
    for (const hook of removed) log(`\tremoving: ${hook.id}`);
    byFile.delete(file);
    hooks = indexHooks(byFile);
    log(`removed ${removed.length} hook(s) that were loaded from file ${file}`);
  };
  if (tlsSettingsError !== undefined) {
    // Upstream's log.Fatalln: only where the log goes, exit 1.
    log(tlsSettingsError.message);
    return 1;
  }
  const address = server?.address();
  const where =
    typeof address === "object" && address !== null
      ? `${config.ip === "0.0.0.0" ? "0.0.0.0" : address.address}:${address.port}`
      : config.socket || `${config.ip}:${config.port}`;
  log(
    `serving hooks on ${config.secure ? "https" : "http"}://${where}/${config.urlprefix}${config.urlprefix === "" ? "" : "/"}{id}`,
  );
  if (server === undefined) {
    // Upstream logs ServeTLS's error and returns from main: exit 0.
    log(tlsError?.message ?? "no server");
    if (config.pidfile !== "") await deps.removeFile(config.pidfile).catch(() => undefined);
    return 0;
  }
  const running = server;
  markReady();
  for (const signal of ["SIGHUP", "SIGUSR1"] as const) {
    deps.onSignal(signal, () => {
      log(`caught ${signal === "SIGHUP" ? "HUP" : "USR1"} signal`);
      // One file after the other, as upstream's reloadAllHooks does, so the log lines do not interleave.
      void (async () => {
        for (const file of [...byFile.keys()]) await reload(file);
      })();
    });
  }
  if (config.hotreload) {
    // Watching the directory (not the file) also catches atomic replaces by rename, which upstream misses.
    for (const file of byFile.keys()) {
      log(`setting up file watcher for ${file}`);
      deps.watch(dirname(file), (changed) => {
        if (changed !== basename(file)) return;
        void (async () => {
          if (await deps.exists(file)) {
            log(`hooks file ${file} modified`);
            await reload(file);
          } else if (byFile.has(file)) {
            log(
              `hooks file ${file} removed, no longer watching this file for changes, removing hooks that were loaded from it`,
            );
            remove(file);
          }
        })();
      });
    }
  }
  return new Promise((resolve) => running.on("close", () => resolve(0)));
}

/** Upstream's words for an id loaded twice, at start-up (fatal) and on reload (the file is refused). */
function duplicateIdError(id: string): string {
  return `error: hook with the id ${id} has already been loaded!\nplease check your hooks file for duplicate hooks ids!`;
}

function indexHooks(byFile: ReadonlyMap<string, readonly Hook[]>): Map<string, Hook> {
  const map = new Map<string, Hook>();
  for (const hooks of byFile.values())
    for (const hook of hooks) if (!map.has(hook.id)) map.set(hook.id, hook);
  return map;
}

/** Go's `log` date and time (`2006/01/02 15:04:05`, local time). */
function goLogStamp(now: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}/${p(now.getMonth() + 1)}/${p(now.getDate())} ${p(now.getHours())}:${p(now.getMinutes())}:${p(now.getSeconds())}`;
}
