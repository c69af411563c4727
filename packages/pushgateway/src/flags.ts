import { goDuration } from "@local/go-compat/duration";
import { UsageError } from "./errors.js";
import { externalUrlPath } from "./external-url.js";
import { parseKingpinDuration } from "./kingpin-duration.js";
import { LOG_LEVELS } from "./logger.js";
import { parseRedisUrl, redactRedisUrl } from "./store/redis/redis-url.js";

/** The gateway's configuration, with upstream's defaults. */
export interface Config {
  /** The first `--web.listen-address` (kept for the log and the status API). */
  listenAddress: string;
  /** Every `--web.listen-address`, in order: the flag may be repeated and each address is served (upstream >= 1.5). */
  listenAddresses: string[];
  telemetryPath: string;
  externalUrl: string;
  routePrefix: string;
  enableLifecycle: boolean;
  enableAdminApi: boolean;
  webConfigFile: string;
  /** Beyond upstream: `/-/healthy` and `/-/ready` answer without credentials when basic auth is on. */
  authExemptProbes: boolean;
  persistenceFile: string;
  /** Milliseconds. */
  persistenceInterval: number;
  disableConsistencyCheck: boolean;
  utf8Names: boolean;
  systemdSocket: boolean;
  logLevel: string;
  logFormat: string;
  /** Beyond upstream: largest push body in bytes, 0 = unlimited. */
  maxBodyBytes: number;
  /** Beyond upstream: milliseconds after its last successful push that a group is dropped, 0 = never. */
  groupTtl: number;
  /** Beyond upstream: most groups held, 0 = unlimited. */
  maxGroups: number;
  /** Beyond upstream: most series held across all groups, 0 = unlimited. */
  maxSeries: number;
  /** Beyond upstream: how `/aggregate/...` pushes combine gauges, `latest` (the pushed value) or `sum`. */
  aggregateGauges: "latest" | "sum";
  /** Beyond upstream: the shared store of replicas, `redis://host:port/db` or `rediss://`; "" = memory store. */
  redisUrl: string;
  /** Beyond upstream: file holding the Redis password (wins over one in the URL). */
  redisPasswordFile: string;
  version: boolean;
  help: boolean;
}

interface FlagSpec {
  readonly name: string;
  readonly key: keyof Config;
  readonly kind: "string" | "bool" | "duration" | "int";
  readonly help: string;
  readonly def?: string;
}

const FLAGS: readonly FlagSpec[] = [
  {
    name: "web.listen-address",
    key: "listenAddress",
    kind: "string",
    help: "Address to listen on for the web interface, API, and telemetry.",
    def: ":9091",
  },
  {
    name: "web.systemd-socket",
    key: "systemdSocket",
    kind: "bool",
    help: "Use systemd socket activation listeners instead of port listeners (Linux only).",
  },
  {
    name: "web.telemetry-path",
    key: "telemetryPath",
    kind: "string",
    help: "Path under which to expose metrics.",
    def: "/metrics",
  },
  {
    name: "web.external-url",
    key: "externalUrl",
    kind: "string",
    help: "The URL under which the Pushgateway is externally reachable.",
  },
  {
    name: "web.route-prefix",
    key: "routePrefix",
    kind: "string",
    help: "Prefix for the internal routes of web endpoints. Defaults to the path of --web.external-url.",
  },
  {
    name: "web.enable-lifecycle",
    key: "enableLifecycle",
    kind: "bool",
    help: "Enable shutdown via HTTP request.",
  },
  {
    name: "web.enable-admin-api",
    key: "enableAdminApi",
    kind: "bool",
    help: "Enable API endpoints for admin control actions.",
  },
  {
    name: "web.config.file",
    key: "webConfigFile",
    kind: "string",
    help: "Path to configuration file that can enable TLS or authentication.",
  },
  {
    name: "web.auth-exempt-probes",
    key: "authExemptProbes",
    kind: "bool",
    help: "Let /-/healthy and /-/ready answer without credentials when basic auth is configured (beyond upstream).",
  },
  {
    name: "persistence.file",
    key: "persistenceFile",
    kind: "string",
    help: "File to persist metrics. If empty, metrics are only kept in memory.",
  },
  {
    name: "persistence.interval",
    key: "persistenceInterval",
    kind: "duration",
    help: "The minimum interval at which to write out the persistence file.",
    def: "5m",
  },
  {
    name: "push.disable-consistency-check",
    key: "disableConsistencyCheck",
    kind: "bool",
    help: "Do not check consistency of pushed metrics. DANGEROUS.",
  },
  {
    name: "push.enable-utf8-names",
    key: "utf8Names",
    kind: "bool",
    help: "Allow UTF-8 characters in metric and label names.",
  },
  {
    name: "push.max-body-bytes",
    key: "maxBodyBytes",
    kind: "int",
    help: "Largest push body accepted, 0 for no limit (beyond upstream).",
    def: "0",
  },
  {
    name: "push.group-ttl",
    key: "groupTtl",
    kind: "duration",
    help: "Drop a group this long after its last successful push, 0s for never (beyond upstream).",
    def: "0s",
  },
  {
    name: "push.max-groups",
    key: "maxGroups",
    kind: "int",
    help: "Refuse (429) pushes that would create more groups than this, 0 for no limit (beyond upstream).",
    def: "0",
  },
  {
    name: "push.max-series",
    key: "maxSeries",
    kind: "int",
    help: "Refuse (429) pushes that would make the gateway hold more series than this, 0 for no limit (beyond upstream).",
    def: "0",
  },
  {
    name: "aggregate.gauges",
    key: "aggregateGauges",
    kind: "string",
    help: "How pushes under /aggregate/ combine gauges: latest (the pushed value replaces) or sum (beyond upstream).",
    def: "latest",
  },
  {
    name: "storage.redis-url",
    key: "redisUrl",
    kind: "string",
    help: "Share the store with every replica on this Redis: redis://[user:password@]host:port/db, rediss:// for TLS (beyond upstream; excludes --persistence.file).",
  },
  {
    name: "storage.redis-password-file",
    key: "redisPasswordFile",
    kind: "string",
    help: "File holding the password for --storage.redis-url (beyond upstream).",
  },
  {
    name: "log.level",
    key: "logLevel",
    kind: "string",
    help: "Only log messages with the given severity or above. One of: [debug, info, warn, error]",
    def: "info",
  },
  {
    name: "log.format",
    key: "logFormat",
    kind: "string",
    help: "Output format of log messages. One of: [logfmt, json]",
    def: "logfmt",
  },
];

/** Usage text in kingpin's shape. */
export function usage(): string {
  const lines = [
    "usage: pushgateway [<flags>]",
    "",
    "The Pushgateway",
    "",
    "Flags:",
    "  -h, --[no-]help  Show context-sensitive help (also try --help-long and --help-man).",
  ];
  for (const f of FLAGS) {
    const arg =
      f.kind === "bool"
        ? `--[no-]${f.name}`
        : `--${f.name}=${f.def ?? f.name.split(".").pop()?.toUpperCase()}`;
    lines.push(`      ${arg}`, `                 ${f.help}`);
  }
  lines.push("      --[no-]version   Show application version.", "");
  return lines.join("\n");
}

/**
 * Parses kingpin-style flags (`--flag=value`, `--flag value`, `--[no-]bool`).
 *
 * @throws {UsageError} with kingpin's wording (`unknown long flag '--x'`)
 */
export function parseFlags(argv: readonly string[]): Config {
  const config: Config = {
    listenAddress: ":9091",
    listenAddresses: [],
    telemetryPath: "/metrics",
    externalUrl: "",
    routePrefix: "",
    enableLifecycle: false,
    enableAdminApi: false,
    webConfigFile: "",
    authExemptProbes: false,
    persistenceFile: "",
    persistenceInterval: 300_000,
    disableConsistencyCheck: false,
    utf8Names: false,
    systemdSocket: false,
    logLevel: "info",
    logFormat: "logfmt",
    maxBodyBytes: 0,
    groupTtl: 0,
    maxGroups: 0,
    maxSeries: 0,
    aggregateGauges: "latest",
    redisUrl: "",
    redisPasswordFile: "",
    version: false,
    help: false,
  };
  const record = config as unknown as Record<string, unknown>;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") {
      config.help = true;
      continue;
    }
    if (arg === "--version") {
      config.version = true;
      continue;
    }
    // kingpin (parser.go): `-x` is a short flag, and -h is the only one (`-hx` is -h then -x); a bare `-` or a word
    // is a stray argument.
    if (/^-h./.test(arg) && arg[2] !== "-") {
      config.help = true;
      const rest = `-${arg.slice(2)}`;
      if (!/^-h*$/.test(rest))
        throw new UsageError(`unknown short flag '-${[...rest.replace(/^-h+/, "-")][1]}'`);
      continue;
    }
    if (/^-[^-]/.test(arg)) throw new UsageError(`unknown short flag '-${[...arg][1]}'`);
    if (!arg.startsWith("--")) throw new UsageError(`unexpected ${arg}`);
    const eq = arg.indexOf("=");
    let name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let negated = false;
    if (name.startsWith("no-")) {
      negated = true;
      name = name.slice(3);
    }
    const spec = FLAGS.find((f) => f.name === name);
    if (spec === undefined)
      throw new UsageError(`unknown long flag '${arg.slice(0, eq < 0 ? undefined : eq)}'`);
    if (spec.kind === "bool") {
      // kingpin takes no value for a bool flag: `--flag=true` leaves `true` as a stray argument (parser.go).
      if (eq >= 0) throw new UsageError(`unexpected ${arg.slice(eq + 1)}`);
      record[spec.key] = !negated;
      continue;
    }
    let value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`expected argument for flag '--${name}'`);
    if (spec.kind === "duration") {
      let ms: number;
      try {
        ms = parseKingpinDuration(value);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      // Upstream takes a negative --persistence.interval as "at once"; a negative TTL means nothing.
      if (ms < 0 && spec.key !== "persistenceInterval")
        throw new UsageError(`negative duration "${value}" for flag --${name}`);
      record[spec.key] = Math.max(0, ms);
    } else if (spec.kind === "int") {
      if (!/^\d+$/.test(value)) throw new UsageError(`invalid value "${value}" for flag --${name}`);
      record[spec.key] = Number(value);
    } else {
      record[spec.key] = value;
      // kingpin's Strings: each --web.listen-address adds one.
      if (spec.key === "listenAddress") config.listenAddresses.push(value);
    }
    value = undefined;
  }
  try {
    externalUrlPath(config.externalUrl);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (config.listenAddresses.length === 0) config.listenAddresses.push(config.listenAddress);
  else config.listenAddress = config.listenAddresses[0] ?? config.listenAddress;
  // promslog's flag values (prometheus/common promslog/slog.go; 1.5.1 quoted the value, upstream no longer does).
  if (!(LOG_LEVELS as readonly string[]).includes(config.logLevel))
    throw new UsageError(`unrecognized log level ${config.logLevel}`);
  if (config.logFormat !== "logfmt" && config.logFormat !== "json")
    throw new UsageError(`unrecognized log format ${config.logFormat}`);
  if (config.aggregateGauges !== "latest" && config.aggregateGauges !== "sum")
    throw new UsageError(
      `invalid value "${config.aggregateGauges}" for flag --aggregate.gauges: use latest (the pushed value) or sum`,
    );
  if (config.redisUrl !== "" && config.persistenceFile !== "")
    throw new UsageError(
      "--persistence.file and --storage.redis-url cannot be combined: with Redis the store lives there; drop one",
    );
  if (config.redisUrl !== "") parseRedisUrl(config.redisUrl);
  if (config.redisUrl === "" && config.redisPasswordFile !== "")
    throw new UsageError("--storage.redis-password-file needs --storage.redis-url");
  return config;
}

/** Every flag's value as a string, by flag name, for `/api/v1/status` (durations as Go prints them: `5m0s`). */
export function flagValues(config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...FLAGS].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const v = config[f.key];
    out[f.name] =
      f.kind === "duration"
        ? goDuration(Number(v) * 1e6)
        : f.key === "redisUrl"
          ? redactRedisUrl(String(v))
          : f.key === "listenAddress"
            ? // kingpin's Strings value prints its values joined by commas, as 1.5.1's status API shows.
              config.listenAddresses.join(",")
            : String(v);
  }
  return out;
}
