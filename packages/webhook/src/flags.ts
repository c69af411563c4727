import { goQuote } from "@local/go-compat/quote";
import { UsageError } from "./errors.js";
import { goParseInt } from "./go-parse-int.js";
import { parseTrustedProxies } from "./request/client-address.js";

/** The server's configuration from the command line, with upstream's defaults (adnanh/webhook webhook.go). */
export interface Config {
  ip: string;
  /** A bigint only where the number given is past what a double holds exactly (Go still names it when listen fails). */
  port: number | bigint;
  hooks: string[];
  verbose: boolean;
  debug: boolean;
  logfile: string;
  nopanic: boolean;
  hotreload: boolean;
  urlprefix: string;
  headers: [string, string][];
  httpMethods: string;
  template: boolean;
  secure: boolean;
  cert: string;
  key: string;
  tlsMinVersion: string;
  cipherSuites: string;
  listCipherSuites: boolean;
  xRequestId: boolean;
  xRequestIdLimit: number;
  maxMultipartMem: number;
  pidfile: string;
  setuid: number;
  setgid: number;
  socket: string;
  version: boolean;
  help: boolean;
  /** Beyond upstream (off by default): largest request body in bytes, 0 = unlimited. */
  maxBodyBytes: number;
  /** Beyond upstream (off by default): log as JSON lines. */
  logFormat: "text" | "json";
  /** Beyond upstream: log why a hook's rules were not satisfied. */
  explainRules: boolean;
  /** Beyond upstream (off by default): where jobs live; every run of a hook is then a job, served at `/jobs/`. */
  jobsDir: string;
  /** Beyond upstream: the output each job keeps (its newest bytes). */
  jobsOutputBytes: number;
  /** Beyond upstream: the jobs kept per hook (the newest). */
  jobsKeep: number;
  /** Beyond upstream (off by default): Prometheus metrics at `GET /metrics` on the same listener. */
  metrics: boolean;
  /** Beyond upstream (off by default): proxies whose X-Forwarded-For/Forwarded name the client, CIDRs or addresses. */
  trustedProxies: readonly string[];
}

type Kind = "bool" | "string" | "int" | "list" | "header" | "cidrs";

interface FlagSpec {
  readonly name: string;
  readonly kind: Kind;
  readonly key: keyof Config;
  readonly usage: string;
  readonly def?: string;
  /** Beyond upstream: accepted, documented in the README, but left out of `-help` so the text stays upstream's. */
  readonly hidden?: true;
}

// Order and texts follow upstream's `flag` definitions so `-help` reads the same.
const FLAGS: readonly FlagSpec[] = [
  {
    name: "cert",
    kind: "string",
    key: "cert",
    usage: "path to the HTTPS certificate pem file",
    def: "cert.pem",
  },
  {
    name: "cipher-suites",
    kind: "string",
    key: "cipherSuites",
    usage: "comma-separated list of supported TLS cipher suites",
  },
  { name: "debug", kind: "bool", key: "debug", usage: "show debug output" },
  {
    name: "header",
    kind: "header",
    key: "headers",
    usage:
      "response header to return, specified in format name=value, use multiple times to set multiple headers",
  },
  {
    name: "hooks",
    kind: "list",
    key: "hooks",
    usage:
      "path to the json file containing defined hooks the webhook should serve, use multiple times to load from different files",
  },
  {
    name: "hotreload",
    kind: "bool",
    key: "hotreload",
    usage: "watch hooks file for changes and reload them automatically",
  },
  {
    name: "http-methods",
    kind: "string",
    key: "httpMethods",
    usage: 'set default allowed HTTP methods (ie. "POST"); separate methods with comma',
  },
  { name: "ip", kind: "string", key: "ip", usage: "ip the webhook should serve hooks on", def: "0.0.0.0" },
  {
    name: "jobs-dir",
    kind: "string",
    key: "jobsDir",
    usage: "keep every run of a hook as a job in this directory, served at /jobs/<id> (beyond upstream)",
    hidden: true,
  },
  {
    name: "jobs-keep",
    kind: "int",
    key: "jobsKeep",
    usage: "jobs kept per hook, the newest (beyond upstream)",
    def: "100",
    hidden: true,
  },
  {
    name: "jobs-output-bytes",
    kind: "int",
    key: "jobsOutputBytes",
    usage: "output kept per job, its last bytes (beyond upstream)",
    def: "1048576",
    hidden: true,
  },
  {
    name: "key",
    kind: "string",
    key: "key",
    usage: "path to the HTTPS certificate private key pem file",
    def: "key.pem",
  },
  {
    name: "list-cipher-suites",
    kind: "bool",
    key: "listCipherSuites",
    usage: "list available TLS cipher suites",
  },
  {
    name: "metrics",
    kind: "bool",
    key: "metrics",
    usage: "serve Prometheus metrics at /metrics on the same listener (beyond upstream)",
    hidden: true,
  },
  {
    name: "explain-rules",
    kind: "bool",
    key: "explainRules",
    usage: "log which trigger rule failed and why (beyond upstream)",
    hidden: true,
  },
  {
    name: "log-format",
    kind: "string",
    key: "logFormat",
    usage: "log format: text (upstream's) or json (beyond upstream)",
    def: "text",
    hidden: true,
  },
  {
    name: "logfile",
    kind: "string",
    key: "logfile",
    usage: "send log output to a file; implicitly enables verbose logging",
  },
  {
    name: "max-body-bytes",
    kind: "int",
    key: "maxBodyBytes",
    usage: "largest request body accepted, 0 for no limit (beyond upstream)",
    def: "0",
    hidden: true,
  },
  {
    name: "max-multipart-mem",
    kind: "int",
    key: "maxMultipartMem",
    usage: "maximum memory in bytes for parsing multipart form data before disk caching",
    def: "1048576",
  },
  {
    name: "nopanic",
    kind: "bool",
    key: "nopanic",
    usage: "do not panic if hooks cannot be loaded when webhook is not running in verbose mode",
  },
  { name: "pidfile", kind: "string", key: "pidfile", usage: "create PID file at the given path" },
  { name: "port", kind: "int", key: "port", usage: "port the webhook should serve hooks on", def: "9000" },
  { name: "secure", kind: "bool", key: "secure", usage: "use HTTPS instead of HTTP" },
  {
    name: "setgid",
    kind: "int",
    key: "setgid",
    usage: "set group ID after opening listening port; must be used with setuid",
    def: "0",
  },
  {
    name: "setuid",
    kind: "int",
    key: "setuid",
    usage: "set user ID after opening listening port; must be used with setgid",
    def: "0",
  },
  {
    name: "socket",
    kind: "string",
    key: "socket",
    usage:
      "path to a Unix socket (e.g. /tmp/webhook.sock) or Windows named pipe to use instead of listening on an ip and port; if specified, the ip and port options are ignored",
    hidden: true,
  },
  {
    name: "trusted-proxies",
    kind: "cidrs",
    key: "trustedProxies",
    usage:
      "CIDRs of reverse proxies whose X-Forwarded-For or Forwarded headers name the client (beyond upstream)",
    hidden: true,
  },
  { name: "template", kind: "bool", key: "template", usage: "parse hooks file as a Go template" },
  {
    name: "tls-min-version",
    kind: "string",
    key: "tlsMinVersion",
    usage: "minimum TLS version (1.0, 1.1, 1.2, 1.3)",
    def: "1.2",
  },
  {
    name: "urlprefix",
    kind: "string",
    key: "urlprefix",
    usage: "url prefix to use for served hooks (protocol://yourserver:port/PREFIX/:hook-id)",
    def: "hooks",
  },
  { name: "verbose", kind: "bool", key: "verbose", usage: "show verbose output" },
  { name: "version", kind: "bool", key: "version", usage: "display webhook version and quit" },
  {
    name: "x-request-id",
    kind: "bool",
    key: "xRequestId",
    usage: "use X-Request-Id header, if present, as request ID",
  },
  {
    name: "x-request-id-limit",
    kind: "int",
    key: "xRequestIdLimit",
    usage: "truncate X-Request-Id header to limit; default no limit",
    def: "0",
  },
];

/** Default configuration, before flags. */
function defaultConfig(): Config {
  return {
    ip: "0.0.0.0",
    port: 9000,
    hooks: [],
    verbose: false,
    debug: false,
    logfile: "",
    nopanic: false,
    hotreload: false,
    urlprefix: "hooks",
    headers: [],
    httpMethods: "",
    template: false,
    secure: false,
    cert: "cert.pem",
    key: "key.pem",
    tlsMinVersion: "1.2",
    cipherSuites: "",
    listCipherSuites: false,
    xRequestId: false,
    xRequestIdLimit: 0,
    maxMultipartMem: 1048576,
    pidfile: "",
    setuid: 0,
    setgid: 0,
    socket: "",
    explainRules: false,
    jobsDir: "",
    jobsOutputBytes: 1048576,
    jobsKeep: 100,
    metrics: false,
    trustedProxies: [],
    version: false,
    help: false,
    maxBodyBytes: 0,
    logFormat: "text",
  };
}

/** Go `flag`-style usage text. */
export function usage(): string {
  const lines = ["Usage of webhook:"];
  for (const f of FLAGS) {
    if (f.hidden) continue;
    const type =
      f.kind === "bool"
        ? ""
        : f.kind === "int"
          ? " int"
          : f.kind === "list" || f.kind === "header"
            ? " value"
            : " string";
    lines.push(`  -${f.name}${type}`);
    const def =
      f.def !== undefined && f.def !== "0" ? ` (default ${f.kind === "int" ? f.def : `"${f.def}"`})` : "";
    lines.push(`    \t${f.usage}${def}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What Go's `strconv.ParseBool` accepts. */
const GO_TRUE = ["1", "t", "T", "TRUE", "true", "True"];
const GO_FALSE = ["0", "f", "F", "FALSE", "false", "False"];

/**
 * Parses arguments as Go's `flag` package does: `-flag value`, `-flag=value`, `--flag`, booleans as `-flag` or
 * `-flag=true`; parsing stops at the first non-flag argument or `--`.
 *
 * @throws {UsageError} with Go's message (`flag provided but not defined: -x`, `invalid value ...`)
 */
export function parseFlags(argv: readonly string[]): Config {
  const config = defaultConfig();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") break;
    if (!arg.startsWith("-") || arg === "-") break;
    const body = arg.replace(/^--?/, "");
    if (body === "" || body.startsWith("-") || body.startsWith("="))
      throw new UsageError(`bad flag syntax: ${arg}`);
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let value = eq >= 0 ? body.slice(eq + 1) : undefined;
    const spec = FLAGS.find((f) => f.name === name);
    if (spec === undefined) {
      // Go's flag package stops at -h/-help (ErrHelp): what follows is not read.
      if (name === "h" || name === "help") {
        config.help = true;
        return config;
      }
      throw new UsageError(`flag provided but not defined: -${name}`);
    }
    if (spec.kind === "bool") {
      const v = value ?? "true";
      if (!GO_TRUE.includes(v) && !GO_FALSE.includes(v)) {
        throw new UsageError(`invalid boolean value ${goQuote(v)} for -${name}: parse error`);
      }
      (config as unknown as Record<string, unknown>)[spec.key] = GO_TRUE.includes(v);
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: -${name}`);
      value = argv[++i] ?? "";
    }
    const invalid = (why: string) =>
      new UsageError(`invalid value ${goQuote(value)} for flag -${name}: ${why}`);
    switch (spec.kind) {
      case "int": {
        // strconv.ParseInt(value, 0, 64), as Go's int flags: 0x1F, 0o17, 017, 1_000.
        const n = goParseInt(value);
        if (typeof n === "string") throw invalid(n);
        (config as unknown as Record<string, unknown>)[spec.key] =
          spec.key === "port" && !Number.isSafeInteger(Number(n)) ? n : Number(n);
        break;
      }
      case "list":
        config.hooks.push(value);
        break;
      case "header": {
        const at = value.indexOf("=");
        if (at < 0) throw invalid("header flag must be in name=value format");
        config.headers.push([value.slice(0, at), value.slice(at + 1)]);
        break;
      }
      case "cidrs": {
        const ranges = parseTrustedProxies(value);
        if (!Array.isArray(ranges)) throw invalid(ranges.error);
        (config as unknown as Record<string, unknown>)[spec.key] = ranges;
        break;
      }
      default:
        (config as unknown as Record<string, unknown>)[spec.key] = value;
    }
  }
  if (config.logFormat !== "text" && config.logFormat !== "json") {
    throw new UsageError(`invalid value "${config.logFormat}" for flag -log-format: use text or json`);
  }
  checkJobFlags(config);
  return config;
}

/**
 * The jobs flags (beyond upstream): counts must be positive, and with `-jobs-dir` the hooks cannot be served under
 * `/jobs/`, where the jobs are.
 *
 * @throws {UsageError} saying which flag and what to do
 */
function checkJobFlags(config: Config): void {
  for (const [name, value] of [
    ["jobs-output-bytes", config.jobsOutputBytes],
    ["jobs-keep", config.jobsKeep],
  ] as const) {
    if (value < 1) throw new UsageError(`invalid value "${value}" for flag -${name}: must be at least 1`);
  }
  if (config.jobsDir !== "" && config.urlprefix === "jobs") {
    throw new UsageError(
      'invalid value "jobs" for flag -urlprefix: with -jobs-dir, /jobs/ serves the jobs; choose another prefix',
    );
  }
}

/**
 * `-http-methods` as upstream reads it (webhook.go): spaces removed, upper-cased, split at commas. Empty, no method
 * is refused; otherwise only those listed are allowed, and an empty item (`-http-methods ,`) allows none.
 */
export function defaultHttpMethods(value: string): string[] {
  const methods = value.replaceAll(" ", "").toUpperCase();
  return methods === "" ? [] : methods.split(",");
}
