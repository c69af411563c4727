import { posix } from "node:path";
import { goErrnoText } from "@local/go-compat/os-error";
import { HooksFileError, WebhookError } from "../errors.js";
import { readRegularFile, readRegularFileSync } from "../regular-file.js";
import { decodeGoYaml, formatFloat32G, GoFloat } from "./go-yaml.js";
import type { Argument, Hook, MatchRule, Rule } from "./hook.js";

/**
 * Loads a hooks file. Upstream decodes every file, JSON included, as YAML 1.1 (ghodss/yaml), matches field names
 * case-insensitively, ignores unknown fields and turns numbers and booleans in string fields into strings
 * (internal/hook/hook.go Hooks.LoadFromFile); this does the same. With `template`, the file is first expanded as a Go
 * template supporting `getenv`, `cat` and `credential` (and the `js` escaper), which is how users keep secrets out of
 * the file.
 *
 * @throws {HooksFileError} with upstream's wording where it has one
 */
export async function loadHooksFile(
  path: string,
  options: { template: boolean; env: Readonly<Record<string, string | undefined>> },
): Promise<Hook[]> {
  let text: string;
  try {
    text = (await readRegularFile(path)).toString("utf8");
  } catch (cause) {
    // A named pipe, socket or device, or a stalled file system: refused, naming the path and why.
    if (cause instanceof WebhookError) throw new HooksFileError(cause.message, { cause });
    // Go's os.ReadFile error as upstream logs it: `open <path>: …`, or `read <path>: is a directory`.
    const error = cause as NodeJS.ErrnoException;
    throw new HooksFileError(`${error.syscall === "read" ? "read" : "open"} ${path}: ${goErrnoText(error)}`, {
      cause,
    });
  }
  return parseHooks(
    options.template ? expandTemplate(text, { env: options.env, readFile: readTextFile }) : text,
  );
}

/**
 * Parses the text of a hooks file: YAML as yaml.v2 reads it (see {@link decodeGoYaml}), then the fields as Go's
 * encoding/json fills upstream's `hook.Hooks` from the JSON ghodss/yaml makes of it.
 */
export function parseHooks(text: string): Hook[] {
  const doc = decodeGoYaml(text);
  if (doc === null) return [];
  try {
    if (!Array.isArray(doc))
      throw new HooksFileError("json: cannot unmarshal object into Go value of type hook.Hooks");
    return doc.map((raw) => parseHook(raw));
  } catch (error) {
    if (!(error instanceof HooksFileError)) throw error;
    // ghodss/yaml's Unmarshal wraps encoding/json's error.
    throw new HooksFileError(`error unmarshaling JSON: ${error.message}`, { cause: error });
  }
}

function parseHook(raw: unknown): Hook {
  const h = fields(raw, "hook.Hook");
  return {
    id: str(h.id, "Hook.id"),
    executeCommand: str(h["execute-command"], "Hook.execute-command"),
    commandWorkingDirectory: str(h["command-working-directory"], "Hook.command-working-directory"),
    responseMessage: str(h["response-message"], "Hook.response-message"),
    responseHeaders: list(h["response-headers"], "Hook.response-headers", "hook.Header").map((x) => {
      const f = fields(x, "hook.Header");
      return { name: str(f.name, "Header.name"), value: str(f.value, "Header.value") };
    }),
    successHttpResponseCode: int(h["success-http-response-code"], "Hook.success-http-response-code"),
    triggerRuleMismatchHttpResponseCode: int(
      h["trigger-rule-mismatch-http-response-code"],
      "Hook.trigger-rule-mismatch-http-response-code",
    ),
    incomingPayloadContentType: str(h["incoming-payload-content-type"], "Hook.incoming-payload-content-type"),
    // Upstream trims and upper-cases each method when it matches a request; done once here instead.
    httpMethods: list(h["http-methods"], "Hook.http-methods", "string").map((m) =>
      str(m, "Hook.http-methods").trim().toUpperCase(),
    ),
    includeCommandOutputInResponse: bool(
      h["include-command-output-in-response"],
      "Hook.include-command-output-in-response",
    ),
    includeCommandOutputInResponseOnError: bool(
      h["include-command-output-in-response-on-error"],
      "Hook.include-command-output-in-response-on-error",
    ),
    passArgumentsToCommand: args(h["pass-arguments-to-command"], "Hook.pass-arguments-to-command"),
    passEnvironmentToCommand: args(h["pass-environment-to-command"], "Hook.pass-environment-to-command"),
    passFileToCommand: args(h["pass-file-to-command"], "Hook.pass-file-to-command"),
    parseParametersAsJson: args(h["parse-parameters-as-json"], "Hook.parse-parameters-as-json"),
    triggerRule:
      h["trigger-rule"] === undefined || h["trigger-rule"] === null ? undefined : rule(h["trigger-rule"]),
    triggerSignatureSoftFailures: bool(
      h["trigger-signature-soft-failures"],
      "Hook.trigger-signature-soft-failures",
    ),
    maximumConcurrentExecutions: int(
      h["maximum-concurrent-executions"],
      "Hook.maximum-concurrent-executions",
    ),
    timeout: int(h.timeout, "Hook.timeout"),
    streamCommandOutput: bool(h["stream-command-output"], "Hook.stream-command-output"),
    queue: int(h.queue, "Hook.queue"),
    deduplicateBy: str(h["deduplicate-by"], "Hook.deduplicate-by"),
    killGraceSeconds: int(h["kill-grace-seconds"], "Hook.kill-grace-seconds"),
  };
}

function rule(raw: unknown): Rule {
  const r = fields(raw, "hook.Rules");
  if (r.and !== undefined && r.and !== null) return { and: list(r.and, "Rules.and", "hook.Rules").map(rule) };
  if (r.or !== undefined && r.or !== null) return { or: list(r.or, "Rules.or", "hook.Rules").map(rule) };
  if (r.not !== undefined && r.not !== null) return { not: rule(r.not) };
  if (r.match !== undefined && r.match !== null) {
    const m = fields(r.match, "hook.MatchRule");
    const match: MatchRule = {
      type: str(m.type, "MatchRule.type"),
      regex: str(m.regex, "MatchRule.regex"),
      secret: str(m.secret, "MatchRule.secret"),
      value: str(m.value, "MatchRule.value"),
      ipRange: str(m["ip-range"], "MatchRule.ip-range"),
      parameter: argument(m.parameter ?? {}),
      ...tolerance(m["tolerance-seconds"]),
    };
    return { match };
  }
  return { empty: true };
}

/** `tolerance-seconds` (beyond upstream): a whole number of seconds above 0; absent, the key is left out. */
function tolerance(raw: unknown): { toleranceSeconds?: number } {
  if (raw === undefined || raw === null) return {};
  const seconds = int(raw, "MatchRule.tolerance-seconds");
  if (seconds <= 0)
    throw new HooksFileError(`tolerance-seconds must be a number of seconds above 0, not ${seconds}`);
  return { toleranceSeconds: seconds };
}

function args(raw: unknown, field: string): Argument[] {
  return list(raw, field, "hook.Argument").map(argument);
}

function argument(raw: unknown): Argument {
  const a = fields(raw, "hook.Argument");
  return {
    source: str(a.source, "Argument.source"),
    name: str(a.name, "Argument.name"),
    envname: str(a.envname, "Argument.envname"),
    base64decode: bool(a.base64decode, "Argument.base64decode"),
  };
}

/**
 * An object's fields with lower-cased keys. ghodss/yaml hands encoding/json an object with its keys sorted, and
 * encoding/json matches field names case-insensitively, each match overwriting the last: so of `ID` and `id`, the
 * value of `id` (sorted last) is the one upstream uses.
 */
function fields(raw: unknown, type: string): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== "object" || Array.isArray(raw) || raw instanceof GoFloat) {
    throw new HooksFileError(`json: cannot unmarshal ${goType(raw)} into Go value of type ${type}`);
  }
  const out: Record<string, unknown> = Object.create(null);
  const entries = Object.entries(raw as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  for (const [k, v] of entries) out[k.toLowerCase()] = v;
  return out;
}

/** A string field: ghodss/yaml turns numbers and booleans bound for one into text (ints in decimal, floats `%g`). */
function str(raw: unknown, field: string): string {
  if (raw === undefined || raw === null) return "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "bigint") return String(raw);
  if (raw instanceof GoFloat) return formatFloat32G(raw.value);
  if (typeof raw === "boolean") return raw ? "true" : "false";
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field ${field} of type string`,
  );
}

function int(raw: unknown, field: string): number {
  if (raw === undefined || raw === null) return 0;
  if (typeof raw === "number" && Number.isInteger(raw)) return raw;
  // encoding/json reads the float ghodss wrote (201.0 is written 201) into an int when it has no fraction.
  if (raw instanceof GoFloat && Number.isInteger(raw.value) && Math.abs(raw.value) < 2 ** 53)
    return raw.value;
  throw new HooksFileError(`json: cannot unmarshal ${goType(raw)} into Go struct field ${field} of type int`);
}

function bool(raw: unknown, field: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === "boolean") return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field ${field} of type bool`,
  );
}

function list(raw: unknown, field: string, element: string): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field ${field} of type []${element}`,
  );
}

function goType(raw: unknown): string {
  if (Array.isArray(raw)) return "array";
  if (raw instanceof GoFloat || typeof raw === "bigint") return "number";
  if (typeof raw === "object") return "object";
  return typeof raw;
}

/** What a template reads: the environment, and files (`cat`, `credential`); undefined for a file it cannot read. */
export interface TemplateSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string | undefined;
}

/**
 * A file's text, or undefined when it cannot be read (missing, a directory, no permission), as upstream's `cat`.
 * A named pipe, socket or device is refused (upstream would block on it): the hooks file is not loaded.
 *
 * @throws {HooksFileError} naming the file and its type
 */
function readTextFile(path: string): string | undefined {
  try {
    return readRegularFileSync(path).toString("utf8");
  } catch (error) {
    if (error instanceof WebhookError)
      throw new HooksFileError(`template: ${error.message}`, { cause: error });
    return undefined;
  }
}

/**
 * The template functions as upstream master's internal/hook/hook.go (`getenv`, and `cat`/`credential` from #712
 * trimmed by #720): Go's os.Getenv gives "" for an unset variable; `cat` drops one trailing newline and gives "" for
 * a file it cannot read; `credential` reads `$CREDENTIALS_DIRECTORY/<name>` (path.Join, so the path is cleaned) and
 * falls back to the variable of that name only when `CREDENTIALS_DIRECTORY` is unset or empty.
 */
function templateFunction(name: string, arg: string, sources: TemplateSources): string {
  const getenv = (key: string) => sources.env[key] ?? "";
  const cat = (path: string) => {
    const text = sources.readFile(path);
    if (text === undefined) return "";
    return text.endsWith("\n") ? text.slice(0, -1) : text;
  };
  switch (name) {
    case "getenv":
      return getenv(arg);
    case "cat":
      return cat(arg);
    default: {
      const dir = getenv("CREDENTIALS_DIRECTORY");
      return dir === "" ? getenv(arg) : cat(goPathJoin(dir, arg));
    }
  }
}

/** Go's path.Join of two elements: joined and cleaned, no trailing slash (node's join keeps one). */
function goPathJoin(dir: string, name: string): string {
  const joined = posix.normalize(name === "" ? dir : `${dir}/${name}`);
  return joined.length > 1 && joined.endsWith("/") ? joined.slice(0, -1) : joined;
}

/**
 * Expands the subset of Go's text/template that hooks files use: `{{ getenv "NAME" }}`, `{{ cat "/path" }}` and
 * `{{ credential "name" }}`, each optionally piped through `js`, with `{{-`/`-}}` trimming. Anything else is refused
 * rather than passed through silently.
 */
export function expandTemplate(text: string, sources: TemplateSources): string {
  return text.replace(
    /(\s*)\{\{(-?)\s*(.*?)\s*(-?)\}\}(\s*)/gs,
    (_all, before: string, trimLeft: string, action: string, trimRight: string, after: string) => {
      const m = /^(getenv|cat|credential)\s+"((?:[^"\\]|\\.)*)"\s*(?:\|\s*(js))?$/.exec(action);
      if (!m)
        throw new HooksFileError(
          `template: hooks: unsupported action {{${action}}} (only getenv, cat, credential and js are supported)`,
        );
      const arg = JSON.parse(`"${m[2] ?? ""}"`) as string;
      let value = templateFunction(m[1] as string, arg, sources);
      if (m[3] === "js") value = goJsEscape(value);
      return `${trimLeft ? "" : before}${value}${trimRight ? "" : after}`;
    },
  );
}

/** Go's `template.JSEscapeString`. */
function goJsEscape(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go escapes every control character.
  return s.replace(/[\\'"<>&=\n\r\t]|[\u0000-\u001f]/g, (c) => {
    const named: Record<string, string> = {
      "\\": "\\\\",
      "'": "\\'",
      '"': '\\"',
      "\n": "\\n",
      "\r": "\\r",
      "\t": "\\t",
    };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  });
}
