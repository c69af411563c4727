import type { BootCheck } from "./check-boot.js";
import { checkBoot } from "./check-boot.js";
import { BootstatusError, InputError, UsageError } from "./errors.js";
import { EXIT_ERROR, EXIT_OK, exitCodeForError } from "./exit-code.js";
import type { Flags } from "./flags.js";
import { FLAG_SPECS, parseFlags, usageLine } from "./flags.js";
import { formatCloudInitJson } from "./format/cloud-init-json.js";
import { formatJson } from "./format/json.js";
import { formatPrometheus } from "./format/prometheus.js";
import { formatTabular } from "./format/tabular.js";
import { formatYaml } from "./format/yaml.js";
import { toReport } from "./report.js";
import { formatSummary } from "./summary.js";
import type { RunSystemctl } from "./systemd.js";
import { VERSION } from "./version.js";

/** Everything the command touches, injected by cli.ts (the only module that sees `process`). */
export interface Io {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  /** Reads a file operand, or stdin for `-`/absent. */
  readInput(file: string | undefined): Promise<string>;
  now(): number;
  sleep(ms: number): Promise<void>;
  systemctl: RunSystemctl;
}

function helpText(): string {
  const flags = FLAG_SPECS.map((s) => {
    const names = [
      s.short === undefined ? "" : `-${s.short}, `,
      `--${s.name}`,
      s.metavar ? ` ${s.metavar}` : "",
    ];
    return `  ${names.join("").padEnd(24)} ${s.help}`;
  });
  return `${usageLine()}
Report cloud-init's boot status from its state files, as \`cloud-init status\` does, or as boot status report v1.

commands:
  status (default)         print the boot status
  schema                   print the JSON Schema (draft 2020-12) of report v1
  validate [FILE|-]        check a report v1 against the schema (exit 1 if invalid)
  convert [FILE|-]         turn \`cloud-init status --format json\` output (22.4 to 26.x) into report v1
  report --to URL          wait for the final status, then send report v1 to a webhook (https://, signed with
                           BOOTSTATUS_REPORT_SECRET) or a Pushgateway (pushgateway[s]://host:port/job/<job>)

options:
${flags.join("\n")}

exit status: 0 healthy, 1 error, 2 degraded (recoverable errors only; 0 with --allow-degraded) or usage error,
3 --timeout expired, 4 report not delivered; unless --quiet, a summary of why goes to stderr when the status is
error or degraded or --timeout expired
`;
}

async function render(check: BootCheck, flags: Flags): Promise<string> {
  const { status, diagnostics } = check;
  switch (flags.format ?? "tabular") {
    case "tabular": {
      const text = formatTabular(status, { long: flags.long });
      if (diagnostics === undefined) return text;
      const { formatExplain } = await import("./explain.js");
      return text + formatExplain(diagnostics);
    }
    case "cloud-init-json":
      return formatCloudInitJson(status);
    case "json":
      return formatJson(toReport(status, diagnostics));
    case "yaml":
      return formatYaml(toReport(status, diagnostics));
    case "prometheus":
      return formatPrometheus(toReport(status), { latestEvent: status.latestEvent });
  }
}

async function runStatus(flags: Flags, io: Io): Promise<number> {
  const format = flags.format ?? "tabular";
  if (flags.explain && (format === "cloud-init-json" || format === "prometheus")) {
    // cloud-init's own JSON has no place for it, and the exposition format none either: refused, not dropped.
    throw new UsageError(`argument --explain: works with --format tabular, json or yaml, not '${format}'`);
  }
  const check = await checkBoot(flags, {
    ...io,
    onPoll: () => {
      if (format === "tabular") io.stdout.write(".");
    },
  });
  io.stdout.write(await render(check, flags));
  // After the normal output and on stderr only, so stdout stays cloud-init's byte for byte.
  const summary = flags.quiet ? undefined : formatSummary(check.status, check);
  if (summary !== undefined) io.stderr.write(summary);
  return check.exitCode;
}

/** How messages name a file operand: `-` and absent both mean stdin. */
function inputName(file: string | undefined): string {
  return file === undefined || file === "-" ? "<stdin>" : file;
}

async function readJson(
  file: string | undefined,
  io: Io,
  options: { action: string; parse(text: string): unknown },
): Promise<unknown> {
  const { action } = options;
  const name = inputName(file);
  let text: string;
  try {
    text = await io.readInput(file);
  } catch (error) {
    throw new InputError(`Cannot ${action} "${name}": ${(error as Error).message}`, { cause: error });
  }
  try {
    return options.parse(text);
  } catch (error) {
    throw new InputError(`Cannot ${action} "${name}": not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function runValidate(flags: Flags, io: Io): Promise<number> {
  const doc = await readJson(flags.file, io, { action: "validate", parse: JSON.parse });
  const { validateReport } = await import("./validate.js");
  const violations = validateReport(doc);
  const name = inputName(flags.file);
  if (violations.length === 0) {
    io.stdout.write(`${name}: valid boot status report v1\n`);
    return EXIT_OK;
  }
  for (const v of violations) io.stdout.write(`${name}: ${v.pointer}: ${v.message}\n`);
  return EXIT_ERROR;
}

async function runConvert(flags: Flags, io: Io): Promise<number> {
  const format = flags.format ?? "json";
  if (format !== "json" && format !== "yaml") {
    throw new UsageError(`argument --format: convert prints json or yaml, not '${format}'`);
  }
  // cloud-init's JSON is Python's: json.dumps writes a float past the range as Infinity.
  const { parsePythonJson } = await import("./python/float.js");
  const doc = await readJson(flags.file, io, { action: "convert", parse: parsePythonJson });
  const { convertCloudInitJson } = await import("./convert.js");
  const report = convertCloudInitJson(doc);
  io.stdout.write(format === "json" ? formatJson(report) : await formatYaml(report));
  return EXIT_OK;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const flags = parseFlags(argv);
  if (flags.help) {
    io.stdout.write(helpText());
    return EXIT_OK;
  }
  if (flags.version) {
    io.stdout.write(`bootstatus ${VERSION}\n`);
    return EXIT_OK;
  }
  switch (flags.command) {
    case "status":
      return runStatus(flags, io);
    case "schema": {
      const { schemaText } = await import("./schema.js");
      io.stdout.write(schemaText());
      return EXIT_OK;
    }
    case "validate":
      return runValidate(flags, io);
    case "convert":
      return runConvert(flags, io);
    case "report": {
      const { runReport } = await import("./report-command.js");
      return runReport(flags, io);
    }
  }
}

/** Runs the bootstatus command line and returns the exit code (codes from exit-code.ts); never throws. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // argparse prints the usage and `prog: error: ...` on stderr (ArgumentParser.error).
      io.stderr.write(`${usageLine()}bootstatus: error: ${error.message}\n`);
    } else if (error instanceof BootstatusError) {
      io.stderr.write(`bootstatus: ${error.message}\n`);
    } else {
      io.stderr.write(
        `bootstatus: internal error (please report): ${(error as Error).stack ?? String(error)}\n`,
      );
    }
    return exitCodeForError(error);
  }
}
