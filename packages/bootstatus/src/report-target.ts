import { UsageError } from "./errors.js";

/** Where `report --to` sends the report, parsed once from the URL. */
export type ReportTarget =
  /** `https://…` (or `http://…`): a POST of report v1 JSON, signed (X-Hub-Signature-256). */
  | { kind: "webhook"; url: URL }
  /** `pushgateway[s]://host:port/job/<job>[/label/value…]`: a PUT of the Prometheus text to `/metrics/job/…`. */
  | { kind: "pushgateway"; url: URL };

/** The URL as messages show it: without user name or password. */
export function shownUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

/** Parses `--to`; anything else than the three schemes, or a Pushgateway URL without a job, is a usage error. */
export function parseReportTarget(text: string): ReportTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`argument --to: not a URL: '${text}'`);
  }
  if (url.protocol === "https:" || url.protocol === "http:") return { kind: "webhook", url };
  if (url.protocol === "pushgateway:" || url.protocol === "pushgateways:") {
    // The grouping key as the Pushgateway's API path has it: /metrics/job/<job>{/<label>/<value>} (README "API").
    const parts = url.pathname.split("/").slice(1);
    // A query or fragment has no place in the grouping key; dropped, the push would go to another group.
    const extra = url.search !== "" || url.hash !== "";
    // `job@base64/<value>`: the API's encoding for a job name holding a `/` (README "URL").
    const job = parts[0] === "job" || parts[0] === "job@base64";
    if (!job || (parts[1] ?? "") === "" || parts.length % 2 !== 0 || url.host === "" || extra) {
      throw new UsageError(
        `argument --to: a Pushgateway URL is pushgateway[s]://host:port/job/<job>[/<label>/<value>...], not '${text}'`,
      );
    }
    const http = new URL(
      `${url.protocol === "pushgateways:" ? "https" : "http"}://${url.host}/metrics${url.pathname}`,
    );
    http.username = url.username;
    http.password = url.password;
    return { kind: "pushgateway", url: http };
  }
  throw new UsageError(
    `argument --to: unsupported scheme '${url.protocol}' (use https://, pushgateway:// or pushgateways://)`,
  );
}
