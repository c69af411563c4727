import { type IncomingMessage, ServerResponse } from "node:http";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `Sat, 28 Nov 2026 14:15:26 GMT`: the IMF-fixdate of RFC 9110 section 5.6.7, as `Date.prototype.toUTCString`. */
export function httpDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCFullYear()).padStart(4, "0")} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
}

let second = Number.NaN;
let current = "";

/** The current second's {@link httpDate}, formatted once per second as node caches its own. */
function now(): string {
  const s = Math.floor(Date.now() / 1000);
  if (s !== second) {
    second = s;
    current = httpDate(s * 1000);
  }
  return current;
}

/**
 * An HTTP/1.x response whose `Date` header is formatted here, where node's (`sendDate`) comes from
 * `Date.prototype.toUTCString`: V8 looks up the local time zone's name on each call, and the first lookup loads ICU's
 * time zone names, about 1 MiB of node's binary and data resident for the life of the process
 * (bench/pushgateway/README.md). The header is the same, in the same place (after the handler's headers, as node
 * and Go's net/http put it); a handler that sets its own `Date` keeps it.
 */
export class DatedResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  constructor(req: Request) {
    super(req);
    this.sendDate = false;
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const last = rest.at(-1);
    if (!this.headersSent && !this.hasHeader("date")) {
      if (typeof last === "object" && last !== null && !Array.isArray(last)) {
        if (!Object.keys(last).some((k) => k.toLowerCase() === "date"))
          rest[rest.length - 1] = { ...last, Date: now() };
      } else if (Array.isArray(last)) {
        // Raw headers (a flat list) cannot take one more here: node adds its own Date, as it would have.
        this.sendDate = true;
      } else this.setHeader("Date", now());
    }
    return (super.writeHead as (code: number, ...args: unknown[]) => this)(statusCode, ...rest);
  }
}
