import { posix } from "node:path";
import { goErrnoText } from "@local/go-compat/os-error";
import { HooksFileError, WebhookError } from "../errors.js";
import { readRegularFile, readRegularFileSync } from "../regular-file.js";
import { GoTemplateError, runGoTemplateBytes } from "./go-template/template.js";
import { decodeGoYaml, formatFloat32G, GoFloat } from "./go-yaml.js";
import type { Argument, Hook, MatchRule, Rule } from "./hook.js";
import { libyamlUtf8Error } from "./libyaml-utf8.js";

/**
 * Loads a hooks file. Upstream decodes every file, JSON included, as YAML 1.1 (ghodss/yaml), matches field names
 * case-insensitively, ignores unknown fields and turns numbers and booleans in string fields into strings
 * (internal/hook/hook.go Hooks.LoadFromFile); this does the same. With `template`, the file is first executed as a Go
 * text/template (see {@link expandTemplate}), which is how users keep secrets out of the file.
 *
 * @throws {HooksFileError} with upstream's wording where it has one
 */
export async function loadHooksFile(
  path: string,
  options: { template: boolean; env: Readonly<Record<string, string | undefined>> },
): Promise<Hook[]> {
  // Upstream's LoadFromFile returns no hooks and no error for an empty path (`-hooks ""`).
  if (path === "") return [];
  let raw: Buffer;
  try {
    raw = await readRegularFile(path);
  } catch (cause) {
    // A named pipe, socket or device, or a stalled file system: refused, naming the path and why.
    if (cause instanceof WebhookError) throw new HooksFileError(cause.message, { cause });
    // Go's os.ReadFile error as upstream logs it: `open <path>: …`, or `read <path>: is a directory`.
    const error = cause as NodeJS.ErrnoException;
    throw new HooksFileError(`${error.syscall === "read" ? "read" : "open"} ${path}: ${goErrnoText(error)}`, {
      cause,
    });
  }
  // A template is run over the file's bytes, as Go's is: bytes that are not UTF-8 pass through text unchanged.
  if (options.template)
    return parseHooks(
      expandTemplateBytes(raw.toString("latin1"), { env: options.env, readFile: readTextFile }),
    );
  // libyaml's reader refuses bytes that are not UTF-8 (they would otherwise become U+FFFD here).
  const notUtf8 = libyamlUtf8Error(raw.toString("latin1"));
  if (notUtf8 !== undefined) throw new HooksFileError(`error converting YAML to JSON: yaml: ${notUtf8}`);
  return parseHooks(raw.toString("utf8"));
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
      throw new HooksFileError(`json: cannot unmarshal ${goType(doc)} into Go value of type hook.Hooks`);
    return doc.map((raw) => parseHook(raw));
  } catch (error) {
    if (!(error instanceof HooksFileError)) throw error;
    // ghodss/yaml's Unmarshal wraps encoding/json's error.
    throw new HooksFileError(`error unmarshaling JSON: ${error.message}`, { cause: error });
  }
}

/**
 * Where encoding/json is (its errorContext): the innermost struct and the path of JSON field names from the hook,
 * which its type errors name (`Go struct field Argument.trigger-rule.and.match.parameter.source`).
 */
interface At {
  readonly struct: string;
  readonly path: string;
}

const fieldOf = (at: At) => `${at.struct}.${at.path}`;
const into = (at: At, name: string): At => ({
  struct: at.struct,
  path: at.path === "" ? name : `${at.path}.${name}`,
});

/**
 * Decodes each field in the order ghodss/yaml's JSON has them (sorted), as encoding/json does: a type error does not
 * stop it, and the first one is what it reports.
 */
function eachField(
  raw: unknown,
  type: string,
  at: At | undefined,
  decode: (key: string, value: unknown) => void,
) {
  let first: HooksFileError | undefined;
  for (const [key, value] of Object.entries(fields(raw, type, at))) {
    try {
      decode(key, value);
    } catch (error) {
      if (!(error instanceof HooksFileError)) throw error;
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// The hook.Hook fields by JSON name, per decoder: the Hook property each one sets. Maps, not object literals: a
// hooks file's own key (`constructor`, `__proto__`) must find nothing here, as encoding/json ignores unknown fields.
const STRING_FIELDS = new Map<
  string,
  | "id"
  | "executeCommand"
  | "commandWorkingDirectory"
  | "responseMessage"
  | "incomingPayloadContentType"
  | "deduplicateBy"
>([
  ["id", "id"],
  ["execute-command", "executeCommand"],
  ["command-working-directory", "commandWorkingDirectory"],
  ["response-message", "responseMessage"],
  ["incoming-payload-content-type", "incomingPayloadContentType"],
  ["deduplicate-by", "deduplicateBy"],
]);
const INT_FIELDS = new Map<
  string,
  | "successHttpResponseCode"
  | "triggerRuleMismatchHttpResponseCode"
  | "maximumConcurrentExecutions"
  | "timeout"
  | "queue"
  | "killGraceSeconds"
>([
  ["success-http-response-code", "successHttpResponseCode"],
  ["trigger-rule-mismatch-http-response-code", "triggerRuleMismatchHttpResponseCode"],
  ["maximum-concurrent-executions", "maximumConcurrentExecutions"],
  ["timeout", "timeout"],
  ["queue", "queue"],
  ["kill-grace-seconds", "killGraceSeconds"],
]);
const BOOL_FIELDS = new Map<
  string,
  | "includeCommandOutputInResponse"
  | "includeCommandOutputInResponseOnError"
  | "triggerSignatureSoftFailures"
  | "streamCommandOutput"
>([
  ["include-command-output-in-response", "includeCommandOutputInResponse"],
  ["include-command-output-in-response-on-error", "includeCommandOutputInResponseOnError"],
  ["trigger-signature-soft-failures", "triggerSignatureSoftFailures"],
  ["stream-command-output", "streamCommandOutput"],
]);
const ARGUMENT_LIST_FIELDS = new Map<
  string,
  "passArgumentsToCommand" | "passEnvironmentToCommand" | "passFileToCommand" | "parseParametersAsJson"
>([
  ["pass-arguments-to-command", "passArgumentsToCommand"],
  ["pass-environment-to-command", "passEnvironmentToCommand"],
  ["pass-file-to-command", "passFileToCommand"],
  ["parse-parameters-as-json", "parseParametersAsJson"],
]);

function parseHook(raw: unknown): Hook {
  const hook: Mutable<Hook> = {
    id: "",
    executeCommand: "",
    commandWorkingDirectory: "",
    responseMessage: "",
    responseHeaders: [],
    successHttpResponseCode: 0,
    triggerRuleMismatchHttpResponseCode: 0,
    incomingPayloadContentType: "",
    httpMethods: [],
    includeCommandOutputInResponse: false,
    includeCommandOutputInResponseOnError: false,
    passArgumentsToCommand: [],
    passEnvironmentToCommand: [],
    passFileToCommand: [],
    parseParametersAsJson: [],
    triggerRule: undefined,
    triggerSignatureSoftFailures: false,
    maximumConcurrentExecutions: 0,
    timeout: 0,
    streamCommandOutput: false,
    queue: 0,
    deduplicateBy: "",
    killGraceSeconds: 0,
  };
  eachField(raw, "hook.Hook", undefined, (key, value) => {
    const at: At = { struct: "Hook", path: key };
    const s = STRING_FIELDS.get(key);
    const i = INT_FIELDS.get(key);
    const b = BOOL_FIELDS.get(key);
    const a = ARGUMENT_LIST_FIELDS.get(key);
    if (s !== undefined) hook[s] = str(value, fieldOf(at));
    else if (i !== undefined) hook[i] = int(value, fieldOf(at));
    else if (b !== undefined) hook[b] = bool(value, fieldOf(at));
    else if (a !== undefined) hook[a] = list(value, at, "[]hook.Argument").map((x) => argument(x, at));
    else if (key === "response-headers") {
      hook.responseHeaders = list(value, at, "hook.ResponseHeaders").map((x) => {
        const header = { name: "", value: "" };
        eachField(x, "hook.Header", at, (k, v) => {
          if (k === "name" || k === "value")
            header[k] = str(v, fieldOf({ struct: "Header", path: `${at.path}.${k}` }));
        });
        return header;
      });
    } else if (key === "http-methods") {
      // Upstream trims and upper-cases each method when it matches a request; done once here instead.
      hook.httpMethods = list(value, at, "[]string").map((m) => str(m, fieldOf(at)).trim().toUpperCase());
    } else if (key === "trigger-rule")
      hook.triggerRule = value === null ? undefined : rule(value, at, "hook.Rules");
  });
  return hook;
}

/** `Rules` (and its named copies `NotRule`): every key is decoded, the first of and/or/not/match set is used. */
function rule(raw: unknown, at: At, type: string): Rule {
  const parts: { and?: Rule[]; or?: Rule[]; not?: Rule; match?: MatchRule } = {};
  eachField(raw, type, at, (key, value) => {
    if (value === null) return;
    const here: At = { struct: "Rules", path: into(at, key).path };
    if (key === "and") parts.and = list(value, here, "hook.AndRule").map((r) => rule(r, here, "hook.Rules"));
    else if (key === "or")
      parts.or = list(value, here, "hook.OrRule").map((r) => rule(r, here, "hook.Rules"));
    else if (key === "not") parts.not = rule(value, here, "hook.NotRule");
    else if (key === "match") parts.match = matchRule(value, here);
  });
  if (parts.and !== undefined) return { and: parts.and };
  if (parts.or !== undefined) return { or: parts.or };
  if (parts.not !== undefined) return { not: parts.not };
  if (parts.match !== undefined) return { match: parts.match };
  return { empty: true };
}

function matchRule(raw: unknown, at: At): MatchRule {
  const m: Mutable<MatchRule> = {
    type: "",
    regex: "",
    secret: "",
    value: "",
    ipRange: "",
    parameter: argument({}, at),
  };
  eachField(raw, "hook.MatchRule", at, (key, value) => {
    const here: At = { struct: "MatchRule", path: into(at, key).path };
    if (key === "type" || key === "regex" || key === "secret" || key === "value")
      m[key] = str(value, fieldOf(here));
    else if (key === "ip-range") m.ipRange = str(value, fieldOf(here));
    else if (key === "parameter") m.parameter = argument(value ?? {}, here);
    else if (key === "tolerance-seconds") Object.assign(m, tolerance(value, fieldOf(here)));
  });
  return m;
}

/** `tolerance-seconds` (beyond upstream): a whole number of seconds above 0; absent, the key is left out. */
function tolerance(raw: unknown, field: string): { toleranceSeconds?: number } {
  if (raw === undefined || raw === null) return {};
  const seconds = int(raw, field);
  if (seconds <= 0)
    throw new HooksFileError(`tolerance-seconds must be a number of seconds above 0, not ${seconds}`);
  return { toleranceSeconds: seconds };
}

function argument(raw: unknown, at: At): Argument {
  const a: Mutable<Argument> = { source: "", name: "", envname: "", base64decode: false };
  eachField(raw, "hook.Argument", at, (key, value) => {
    const field = fieldOf({ struct: "Argument", path: into(at, key).path });
    if (key === "source" || key === "name" || key === "envname") a[key] = str(value, field);
    else if (key === "base64decode") a.base64decode = bool(value, field);
  });
  return a;
}

/**
 * An object's fields with lower-cased keys. ghodss/yaml hands encoding/json an object with its keys sorted, and
 * encoding/json matches field names case-insensitively, each match overwriting the last: so of `ID` and `id`, the
 * value of `id` (sorted last) is the one upstream uses.
 */
function fields(raw: unknown, type: string, at: At | undefined): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== "object" || Array.isArray(raw) || raw instanceof GoFloat) {
    const where = at === undefined ? "Go value" : `Go struct field ${fieldOf(at)}`;
    throw new HooksFileError(`json: cannot unmarshal ${goType(raw)} into ${where} of type ${type}`);
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
  // A number encoding/json cannot store in an int is named with its literal, as ghodss's JSON wrote it (decode.go
  // literalStore: `number 1.5`, `number 1e+21`), which JavaScript's number to string matches.
  const what =
    raw instanceof GoFloat
      ? `number ${String(raw.value)}`
      : typeof raw === "bigint"
        ? `number ${raw}`
        : goType(raw);
  throw new HooksFileError(`json: cannot unmarshal ${what} into Go struct field ${field} of type int`);
}

function bool(raw: unknown, field: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === "boolean") return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field ${field} of type bool`,
  );
}

/** A slice field; `type` as Go names the field's type (`hook.AndRule`, `[]hook.Argument`). */
function list(raw: unknown, at: At, type: string): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field ${fieldOf(at)} of type ${type}`,
  );
}

/** encoding/json's name for a JSON value's type in its UnmarshalTypeError (`bool`, not JavaScript's `boolean`). */
function goType(raw: unknown): string {
  if (Array.isArray(raw)) return "array";
  if (raw instanceof GoFloat || typeof raw === "bigint") return "number";
  if (typeof raw === "object") return "object";
  if (typeof raw === "boolean") return "bool";
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

/** Go's path.Join of two elements: joined and cleaned, no trailing slash (node's join keeps one). */
function goPathJoin(dir: string, name: string): string {
  const joined = posix.normalize(name === "" ? dir : `${dir}/${name}`);
  return joined.length > 1 && joined.endsWith("/") ? joined.slice(0, -1) : joined;
}

/**
 * Expands a hooks file as upstream's `-template` does (internal/hook/hook.go ParseHooks): Go's text/template with
 * nil data, Go's builtins and the functions of upstream master (`getenv`, and `cat`/`credential` from #712 trimmed
 * by #720): Go's os.Getenv gives "" for an unset variable; `cat` drops one trailing newline and gives "" for a file
 * it cannot read; `credential` reads `$CREDENTIALS_DIRECTORY/<name>` (path.Join, so the path is cleaned) and falls
 * back to the variable of that name only when `CREDENTIALS_DIRECTORY` is unset or empty.
 *
 * @throws {HooksFileError} Go's parse or execution error (`template: hooks:3: unexpected EOF`)
 */
export function expandTemplate(text: string, sources: TemplateSources): string {
  return expandTemplateBytes(Buffer.from(text, "utf8").toString("latin1"), sources);
}

/**
 * {@link expandTemplate} of a file's bytes (one char per byte). The output is handed to yaml.v2 as bytes upstream,
 * whose reader refuses what is not UTF-8: so does this, with its words.
 */
function expandTemplateBytes(bytes: string, sources: TemplateSources): string {
  const getenv = (key: string) => sources.env[key] ?? "";
  const cat = (path: string) => {
    const content = sources.readFile(path);
    if (content === undefined) return "";
    return content.endsWith("\n") ? content.slice(0, -1) : content;
  };
  const credential = (name: string) => {
    const dir = getenv("CREDENTIALS_DIRECTORY");
    return dir === "" ? getenv(name) : cat(goPathJoin(dir, name));
  };
  try {
    const out = runGoTemplateBytes("hooks", bytes, { getenv, cat, credential });
    const notUtf8 = libyamlUtf8Error(out);
    if (notUtf8 !== undefined) throw new HooksFileError(`error converting YAML to JSON: yaml: ${notUtf8}`);
    return Buffer.from(out, "latin1").toString("utf8");
  } catch (error) {
    if (error instanceof GoTemplateError) throw new HooksFileError(error.message, { cause: error });
    throw error;
  }
}
