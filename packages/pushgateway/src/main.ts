import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import { PersistenceError, UsageError } from "./errors.js";
import { type Config, flagValues, parseFlags, usage } from "./flags.js";
import { startServer } from "./http/server.js";
import { systemdListenFds } from "./http/systemd-socket.js";
import { loadWebConfig } from "./http/web-config.js";
import { createLogger, type LogLevel } from "./logger.js";
import { createOwnMetrics } from "./own-metrics.js";
import { MemoryStore } from "./store/memory-store.js";
import { readPersistence, writePersistence } from "./store/persistence.js";
import { RedisStore } from "./store/redis-store.js";
import { parseRedisUrl, redactRedisUrl } from "./store/redis-url.js";

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
  const store = new MemoryStore({
    own: () => own.cached(),
    groupTtlMs: config.groupTtl,
    maxGroups: config.maxGroups,
    maxSeries: config.maxSeries,
    now: () => deps.now().getTime(),
    utf8Names: config.utf8Names,
  });
  // Beyond upstream: replicas sharing one store on Redis (store/redis-store.ts); persistence is then Redis's.
  let redis: RedisStore | undefined;
  if (config.redisUrl !== "") {
    // The launcher sizes V8 for memory (--optimize-for-size: issue 7's RSS target against upstream's single process).
    // A replica applies every replica's pushes, and under that flag its collector shrinks the young generation after
    // each major collection and drops optimised code: three replicas pushed 0.62-0.66x of a single process's
    // throughput with it, 0.85-0.90x without, for 140-190 MiB per replica instead of 100-115 at 100k series
    // (bench/pushgateway/README.md). Upstream has no replicas to hold to a memory figure.
    deps.setV8Flags("--no-optimize-for-size");
    let password: string | undefined;
    if (config.redisPasswordFile !== "") {
      try {
        password = (await readFile(config.redisPasswordFile, "utf8")).replace(/\r?\n$/, "");
      } catch (error) {
        log("error", `Cannot read --storage.redis-password-file: ${(error as Error).message}`);
        return 1;
      }
    }
    redis = new RedisStore({
      target: parseRedisUrl(config.redisUrl, password),
      memory: {
        own: () => own.cached(),
        maxGroups: config.maxGroups,
        maxSeries: config.maxSeries,
        now: () => deps.now().getTime(),
        utf8Names: config.utf8Names,
      },
      groupTtlMs: config.groupTtl,
      log,
    });
    const url = redactRedisUrl(config.redisUrl);
    if (await redis.waitLoaded(5000)) log("info", "following the store in Redis", { url });
    else log("warn", "Redis is not reachable yet; serving, pushes answer 503 until it is", { url });
  }
  if (config.persistenceFile !== "") {
    try {
      store.restore(await readPersistence(config.persistenceFile));
    } catch (error) {
      if (!(error instanceof PersistenceError)) throw error;
      log("error", error.message);
      return 1;
    }
  }
  let web: Awaited<ReturnType<typeof loadWebConfig>>;
  try {
    web = await loadWebConfig(config.webConfigFile);
  } catch (error) {
    log("error", `Cannot load web config: ${(error as Error).message}`);
    return 1;
  }
  // Persistence: at most once per interval after a change, and on shutdown (upstream storage/diskmetricstore.go).
  let dirty = false;
  let timer: NodeJS.Timeout | undefined;
  const persist = async () => {
    timer = undefined;
    if (!dirty || config.persistenceFile === "") return;
    dirty = false;
    try {
      await writePersistence(config.persistenceFile, store.snapshot());
    } catch (error) {
      dirty = true;
      log("error", `Error persisting metrics: ${(error as Error).message}`);
    }
  };
  const changed = () => {
    dirty = true;
    if (config.persistenceFile !== "" && timer === undefined)
      timer = setTimeout(() => void persist(), config.persistenceInterval);
  };
  const observed = {
    push: (...a: Parameters<MemoryStore["push"]>) => {
      const r = store.push(...a);
      changed();
      return r;
    },
    delete: (...a: Parameters<MemoryStore["delete"]>) => {
      store.delete(...a);
      changed();
    },
    wipe: () => {
      store.wipe();
      changed();
    },
    families: () => store.families(),
    inconsistency: () => store.inconsistency(),
    groups: () => store.groups(),
  };
  const started = deps.now();
  const colon = config.listenAddress.lastIndexOf(":");
  const host = config.listenAddress.slice(0, colon).replace(/^\[|\]$/g, "");
  const port = Number(config.listenAddress.slice(colon + 1));
  log("debug", "external URL", { url: config.externalUrl });
  const prefix = (
    config.routePrefix || (config.externalUrl ? new URL(config.externalUrl).pathname : "")
  ).replace(/\/+$/, "");
  let fd: number | undefined;
  if (config.systemdSocket) {
    // exporter-toolkit web.ListenAndServe: the activated sockets replace --web.listen-address. One server listens
    // on the first; upstream serves each.
    log("info", "Listening on systemd activated listeners instead of port listeners.");
    fd = systemdListenFds(deps.env, deps.pid)[0];
    if (fd === undefined) {
      log("error", "Error listening: no socket activation file descriptors found");
      return 1;
    }
  }
  let server: Server;
  const shutdown = async (via: "web" | "signal") => {
    // Upstream main.go shutdownServerOnQuit: a web request is logged as a warning, a signal as info.
    if (via === "web") log("warn", "received termination request via web service, exiting gracefully...");
    else log("info", "received SIGINT/SIGTERM; exiting gracefully...");
    server?.close();
    if (timer !== undefined) clearTimeout(timer);
    redis?.close();
    log("info", "HTTP server stopped");
    await persist();
    deps.exit(0);
  };
  try {
    server = await startServer({
      host: host === "" ? "::" : host,
      port,
      ...(fd === undefined ? {} : { fd }),
      prefix,
      web,
      ctx: {
        store: redis ?? observed,
        now: deps.now,
        check: !config.disableConsistencyCheck,
        utf8Names: config.utf8Names,
        enableLifecycle: config.enableLifecycle,
        enableAdminApi: config.enableAdminApi,
        telemetryPath: config.telemetryPath,
        pathPrefix: config.externalUrl ? new URL(config.externalUrl).pathname.replace(/\/+$/, "") : prefix,
        groupTtlMs: config.groupTtl,
        ownFamilies: async () => [...(await own.families()), ...(redis?.ownFamilies() ?? [])],
        status: () => ({
          build_information: {
            branch: "",
            buildDate: "",
            buildUser: "",
            goVersion: `node${deps.runtime.node}`,
            revision: "",
            version: VERSION,
          },
          flags: flagValues(config),
          start_time: started.toISOString(),
        }),
        quit: () => void shutdown("web"),
        maxBodyBytes: config.maxBodyBytes,
        onRequest: (handler, method, status) => own.count(handler, method, status),
        onPush: (method, seconds, bytes) => own.observePush(method, seconds, bytes),
      },
    });
  } catch (error) {
    log("error", `Error listening: ${(error as Error).message}`);
    return 1;
  }
  const address = server.address();
  log("info", "Listening on", {
    address:
      typeof address === "object" && address ? `${address.address}:${address.port}` : config.listenAddress,
  });
  deps.onSignal("SIGINT", () => void shutdown("signal"));
  deps.onSignal("SIGTERM", () => void shutdown("signal"));
  return new Promise((resolve) => server.on("close", () => resolve(0)));
}
