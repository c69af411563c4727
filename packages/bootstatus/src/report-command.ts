import type { CheckDeps } from "./check-boot.js";
import { checkBoot } from "./check-boot.js";
import { UsageError } from "./errors.js";
import type { Flags } from "./flags.js";
import { formatJson } from "./format/json.js";
import { formatPrometheus } from "./format/prometheus.js";
import { toReport } from "./report.js";
import { parseReportTarget, shownUrl } from "./report-target.js";
import { REPORT_RETRY_MS, sendReport } from "./send-report.js";
import { formatSummary } from "./summary.js";
import { trustedCas } from "./trust-store.js";

/** What `report` needs from outside: the status check's deps (without its poll hook) and stdout. */
export type ReportDeps = Omit<CheckDeps, "onPoll"> & { stdout: { write(chunk: string): unknown } };

/**
 * `bootstatus report --to URL`: waits for the final status as `--wait` does (bounded by `--timeout`), then sends
 * report v1 to a webhook (signed POST) or a Pushgateway (PUT), retrying until it is taken or the time is up.
 * Exit: the status's own code once delivered; 4 (ReportError) when it could not be.
 */
export async function runReport(flags: Flags, deps: ReportDeps): Promise<number> {
  const target = parseReportTarget(flags.to ?? "");
  const secret = deps.env.BOOTSTATUS_REPORT_SECRET || undefined;
  if (target.kind === "webhook" && secret === undefined) {
    throw new UsageError(
      "report --to https://...: set BOOTSTATUS_REPORT_SECRET, the HMAC-SHA256 key the receiving hook checks",
    );
  }
  if (flags.format !== undefined) {
    throw new UsageError(
      "argument --format: report sends JSON to https:// and Prometheus text to pushgateway://",
    );
  }
  const started = deps.now();
  const check = await checkBoot({ ...flags, wait: true }, { ...deps, onPoll: () => {} });
  const report = toReport(check.status, check.diagnostics);
  const body =
    target.kind === "webhook"
      ? formatJson(report)
      : formatPrometheus(toReport(check.status), { latestEvent: check.status.latestEvent });
  // --timeout bounds the whole command, the wait included; without it the retries go on for 5 minutes.
  const deadline =
    flags.timeout === undefined ? deps.now() + REPORT_RETRY_MS : started + flags.timeout * 1000;
  const where = shownUrl(target.url);
  const sent = await sendReport(
    { target, body, secret, ca: trustedCas(deps.env) },
    {
      now: deps.now,
      sleep: deps.sleep,
      deadline,
      onRetry: (attempt, error, pauseMs) => {
        if (!flags.quiet) {
          deps.stderr.write(
            `bootstatus: attempt ${attempt} to ${where} failed (${error}); again in ${pauseMs} ms\n`,
          );
        }
      },
    },
  );
  deps.stdout.write(
    `bootstatus: sent ${check.status.extendedStatus} to ${where}: HTTP ${sent.status} (attempt ${sent.attempts})\n`,
  );
  const summary = flags.quiet ? undefined : formatSummary(check.status, check);
  if (summary !== undefined) deps.stderr.write(summary);
  return check.exitCode;
}
