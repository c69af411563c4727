import type { Server } from "node:http";
import { cleanPath } from "@local/go-compat/clean-path";
import { MAX_LISTEN_FDS, systemdActivation } from "@local/go-compat/systemd-activation";
import { PersistenceError, UsageError, WebConfigError } from "./errors.js";
import { computeRoutePrefix, externalUrlPath } from "./external-url.js";
import { type Config, flagValues, parseFlags, usage } from "./flags.js";
import type { GatewayContext } from "./handlers/responses.js";
import { WriteQueue } from "./handlers/write-queue.js";
import { startServer } from "./http/server.js";
import { isoTime } from "./iso-time.js";
import { listenAddress } from "./listen-address.js";
import { createLogger, type LogLevel } from "./logger.js";
import { createOwnMetrics, type OwnMetrics } from "./own-metrics.js";
import { type OpenedStore, openStore } from "./store/open-store.js";
import type { WebGuard } from "./web/web-guard.js";

/** The version `--version` reports. */
export const VERSION = "1.11.0";

/** Effects `main` uses; `cli.ts` passes the real ones. */
export interface MainDeps {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
  readonly now: () => Date;
  readonly onSignal: (signal: "SIGINT" | "SIGTERM", handler: () => void) => void;
  readonly exit: (code: number) => void;
  /** The environment (systemd's `LISTEN_PID`/`LISTEN_FDS`) and this process's id. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly pid: number;
  /** What `--version`, the status API and build info report in place of Go's version and platform. */
  readonly runtime: { readonly node: string; readonly platform: string; readonly arch: string };
  /** Changes V8's flags while running (`v8.setFlagsFromString`). */
  readonly setV8Flags: (flags: string) => void;
}

/** Runs the gateway until it is stopped; resolves with an exit code for the cases that end before serving. */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  let config: Config;
  try {
    config = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    deps.stderr.write(`pushgateway: error: ${error.message}, try --help\n`);
    return 1;
  }
  if (config.help) {
    deps.stdout.write(usage());
    return 0;
  }
  if (config.version) {
    deps.stdout.write(
      `pushgateway, version ${VERSION} (branch: , revision: )\n  build user:       \n  build date:       \n  go version:       node${deps.runtime.node}\n  platform:         ${deps.runtime.platform}/${deps.runtime.arch}\n  tags:             \n`,
    );
    return 0;
  }
  const log = createLogger({
    format: config.logFormat === "json" ? "json" : "logfmt",
    level: config.logLevel as LogLevel,
    write: (line) => deps.stderr.write(line),
    now: deps.now,
  });
  log("info", "starting pushgateway", { version: `(version=${VERSION}, branch=, revision=)` });
  const own = createOwnMetrics({ version: VERSION, goVersion: `node${deps.runtime.node}` });
  await own.families();
  let opened: OpenedStore;
  try {
    opened = await openStore(config, {
      own: () => own.cached(),
      now: () => deps.now().getTime(),
      log,
      setV8Flags: deps.setV8Flags,
    });
  } catch (error) {
    if (!(error instanceof PersistenceError)) throw error;
    log("error", error.message);
    return 1;
  }
  let web: WebGuard | undefined;
  if (config.webConfigFile !== "") {
    try {
      // Loaded only for a web config: the TLS and auth modules behind it (node:tls, yaml) cost idle memory.
      const { openWebGuard } = await import("./web/web-guard.js");
      web = await openWebGuard(config.webConfigFile, {
        exemptProbes: config.authExemptProbes,
        log,
        now: () => deps.now().getTime(),
      });
    } catch (error) {
      if (!(error instanceof WebConfigError)) throw error;
      log("error", `Cannot load web config: ${config.webConfigFile}: ${error.message}`);
      await opened.close();
      return 1;
    }
  }
  const listeners = listenersOf(config, deps);
  if (typeof listeners === "string") {
    log("error", `Error listening: ${listeners}`);
    await opened.close();
    return 1;
  }
  const started = deps.now();
  log("debug", "external URL", { url: config.externalUrl });
  const prefix = computeRoutePrefix(config.routePrefix, externalUrlPath(config.externalUrl));
  const servers: Server[] = [];
  const shutdown = async (via: "web" | "signal") => {
    // Upstream main.go shutdownServerOnQuit: a web request is logged as a warning, a signal as info.
    if (via === "web") log("warn", "received termination request via web service, exiting gracefully...");
    else log("info", "received SIGINT/SIGTERM; exiting gracefully...");
    for (const server of servers) server.close();
    log("info", "HTTP server stopped");
    await opened.close();
    await web?.auth.close();
    deps.exit(0);
  };
  const ctx = gatewayContext(config, {
    deps,
    started,
    prefix,
    store: opened,
    own,
    quit: () => void shutdown("web"),
  });
  // exporter-toolkit ServeMultiple: one server per listener (each --web.listen-address, or each systemd socket).
  try {
    for (const listener of listeners) {
      const server = await startServer({ ...listener, prefix, web, ctx });
      servers.push(server);
      const address = server.address();
      // Go's Addr().String() (net.JoinHostPort): an IPv6 host in brackets, `[::]:9091`.
      const where =
        typeof address === "object" && address
          ? `${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`
          : String(address);
      log("info", "Listening on", { address: where });
      // exporter-toolkit's Serve: HTTP/2 is on only with TLS and http_server_config.http2.
      const tlsOn = web?.config.initialTls !== undefined;
      log("info", tlsOn ? "TLS is enabled." : "TLS is disabled.", {
        http2: String(tlsOn && web?.config.initial.http2 === true),
        address: where,
      });
    }
  } catch (error) {
    log("error", `Error listening: ${(error as Error).message}`);
    for (const server of servers) server.close();
    await opened.close();
    return 1;
  }
  deps.onSignal("SIGINT", () => void shutdown("signal"));
  deps.onSignal("SIGTERM", () => void shutdown("signal"));
  return new Promise((resolve) => {
    let open = servers.length;
    for (const server of servers) server.on("close", () => --open === 0 && resolve(0));
  });
}

/**
 * Where to listen: each `--web.listen-address`, or with `--web.systemd-socket` each socket systemd passed
 * (exporter-toolkit `ListenAndServe`); a message when there is none.
 */
function listenersOf(
  config: Config,
  deps: Pick<MainDeps, "env" | "pid">,
): { host: string; port: number; fd?: number }[] | string {
  if (config.systemdSocket) {
    const { fds, count } = systemdActivation(deps.env, deps.pid);
    // go-compat lists none past MAX_LISTEN_FDS (nothing spent on LISTEN_FDS=100000000): say so, not "none found".
    if (count > fds.length) {
      return `LISTEN_FDS=${count} is more than the ${MAX_LISTEN_FDS} descriptors a socket unit passes`;
    }
    if (fds.length === 0) return "no socket activation file descriptors found";
    return fds.map((fd) => ({ host: "", port: 0, fd }));
  }
  const listeners: { host: string; port: number }[] = [];
  for (const address of config.listenAddresses) {
    const listener = listenAddress(address);
    if (typeof listener === "string") return listener;
    listeners.push(listener);
  }
  return listeners;
}

/** What the handlers work with: the store, the flags they read, the gateway's own metrics and status. */
function gatewayContext(
  config: Config,
  parts: {
    deps: MainDeps;
    started: Date;
    prefix: string;
    store: OpenedStore;
    own: OwnMetrics;
    quit: () => void;
  },
): GatewayContext {
  const { deps, own, store: opened } = parts;
  return {
    store: opened.store,
    writes: new WriteQueue(),
    now: deps.now,
    check: !config.disableConsistencyCheck,
    utf8Names: config.utf8Names,
    enableLifecycle: config.enableLifecycle,
    enableAdminApi: config.enableAdminApi,
    telemetryPath: telemetryRoute(config.telemetryPath),
    pathPrefix: config.externalUrl
      ? computeRoutePrefix("", externalUrlPath(config.externalUrl))
      : parts.prefix,
    groupTtlMs: config.groupTtl,
    ownFamilies: async () => [...(await own.families()), ...opened.ownFamilies()],
    status: () => ({
      build_information: {
        branch: "",
        buildDate: "",
        buildUser: "",
        goVersion: `node${deps.runtime.node}`,
        revision: "",
        version: VERSION,
      },
      // Upstream main.go assigns the computed prefix back to the flag before listing the flags.
      flags: { ...flagValues(config), "web.route-prefix": parts.prefix },
      start_time: isoTime(parts.started.getTime()),
    }),
    quit: parts.quit,
    maxBodyBytes: config.maxBodyBytes,
    aggregateGauges: config.aggregateGauges,
    onRequest: (handler, method, status) => own.count(handler, method, status),
    onPush: (method, seconds, bytes) => own.observePush(method, seconds, bytes),
  };
}

/**
 * The scrape route for `--web.telemetry-path`, cleaned as upstream's `path.Join(routePrefix, metricsPath)` cleans it
 * (`/m/` and `//m` serve `/m`); a relative path, which makes upstream's router panic at start, is taken from the root.
 */
function telemetryRoute(metricsPath: string): string {
  const clean = cleanPath(metricsPath);
  return clean.length > 1 && clean.endsWith("/") ? clean.slice(0, -1) : clean;
}
