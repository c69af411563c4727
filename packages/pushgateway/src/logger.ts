import { isoTime } from "./iso-time.js";

/** Severity levels of `--log.level`, lowest first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Logs one message with fields; messages below the configured level are dropped. */
export type Log = (level: LogLevel, msg: string, fields?: Readonly<Record<string, string>>) => void;

/**
 * The gateway's logger in upstream's shapes (promslog in go-kit style, as pushgateway configures it):
 * logfmt `ts=… level=info msg="Listening on" address=127.0.0.1:9091` (values quoted only when needed) or one JSON
 * object per line with the same keys. Go's `caller` is omitted: there is no Go source location to name.
 */
export function createLogger(options: {
  format: "logfmt" | "json";
  level: LogLevel;
  write: (line: string) => void;
  now: () => Date;
}): Log {
  const min = LOG_LEVELS.indexOf(options.level);
  return (level, msg, fields = {}) => {
    if (LOG_LEVELS.indexOf(level) < min) return;
    const ts = isoTime(options.now().getTime());
    if (options.format === "json") {
      options.write(`${JSON.stringify({ ts, level, msg, ...fields })}\n`);
      return;
    }
    const pairs = [["ts", ts], ["level", level], ["msg", msg], ...Object.entries(fields)];
    options.write(`${pairs.map(([k, v]) => `${k}=${logfmtValue(v ?? "")}`).join(" ")}\n`);
  };
}

/** go-logfmt: a value is quoted (with Go escapes) when empty or holding a space, `=`, `"` or a control character. */
function logfmtValue(value: string): string {
  const control = [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  return value === "" || control || /[\s="\\]/.test(value) ? JSON.stringify(value) : value;
}
