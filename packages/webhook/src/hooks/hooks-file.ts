import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { HooksFileError } from "../errors.js";
import type { Argument, Hook, MatchRule, Rule } from "./hook.js";

/**
 * Loads a hooks file. Upstream decodes every file, JSON included, as YAML 1.1 (ghodss/yaml), matches field names
 * case-insensitively, ignores unknown fields and turns numbers and booleans in string fields into strings
 * (research §3); this does the same. With `template`, the file is first expanded as a Go template supporting
 * `getenv` (and the `js` escaper), which is how users keep secrets out of the file.
 *
 * @throws {HooksFileError} with upstream's wording where it has one
 */
export async function loadHooksFile(
  path: string,
  options: { template: boolean; env: Readonly<Record<string, string | undefined>> },
): Promise<Hook[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new HooksFileError(`open ${path}: no such file or directory`, { cause });
  }
  return parseHooks(options.template ? expandTemplate(text, options.env) : text);
}

/** Parses the text of a hooks file. */
export function parseHooks(text: string): Hook[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { version: "1.1", uniqueKeys: false });
  } catch (cause) {
    throw new HooksFileError(`error converting YAML to JSON: ${(cause as Error).message.split("\n")[0]}`, {
      cause,
    });
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc))
    throw new HooksFileError("json: cannot unmarshal object into Go value of type hook.Hooks");
  return doc.map((raw) => parseHook(raw));
}

function parseHook(raw: unknown): Hook {
  const h = fields(raw, "hook.Hook");
  return {
    id: str(h.id, "id"),
    executeCommand: str(h["execute-command"], "execute-command"),
    commandWorkingDirectory: str(h["command-working-directory"], "command-working-directory"),
    responseMessage: str(h["response-message"], "response-message"),
    responseHeaders: list(h["response-headers"], "response-headers").map((x) => {
      const f = fields(x, "hook.Header");
      return { name: str(f.name, "name"), value: str(f.value, "value") };
    }),
    successHttpResponseCode: int(h["success-http-response-code"], "success-http-response-code"),
    triggerRuleMismatchHttpResponseCode: int(
      h["trigger-rule-mismatch-http-response-code"],
      "trigger-rule-mismatch-http-response-code",
    ),
    incomingPayloadContentType: str(h["incoming-payload-content-type"], "incoming-payload-content-type"),
    // Upstream trims and upper-cases each method when it matches a request; done once here instead.
    httpMethods: list(h["http-methods"], "http-methods").map((m) =>
      str(m, "http-methods").trim().toUpperCase(),
    ),
    includeCommandOutputInResponse: bool(
      h["include-command-output-in-response"],
      "include-command-output-in-response",
    ),
    includeCommandOutputInResponseOnError: bool(
      h["include-command-output-in-response-on-error"],
      "include-command-output-in-response-on-error",
    ),
    passArgumentsToCommand: args(h["pass-arguments-to-command"]),
    passEnvironmentToCommand: args(h["pass-environment-to-command"]),
    passFileToCommand: args(h["pass-file-to-command"]),
    parseParametersAsJson: args(h["parse-parameters-as-json"]),
    triggerRule:
      h["trigger-rule"] === undefined || h["trigger-rule"] === null ? undefined : rule(h["trigger-rule"]),
    triggerSignatureSoftFailures: bool(
      h["trigger-signature-soft-failures"],
      "trigger-signature-soft-failures",
    ),
    maximumConcurrentExecutions: int(h["maximum-concurrent-executions"], "maximum-concurrent-executions"),
    timeout: int(h.timeout, "timeout"),
  };
}

function rule(raw: unknown): Rule {
  const r = fields(raw, "hook.Rules");
  if (r.and !== undefined && r.and !== null) return { and: list(r.and, "and").map(rule) };
  if (r.or !== undefined && r.or !== null) return { or: list(r.or, "or").map(rule) };
  if (r.not !== undefined && r.not !== null) return { not: rule(r.not) };
  if (r.match !== undefined && r.match !== null) {
    const m = fields(r.match, "hook.MatchRule");
    const match: MatchRule = {
      type: str(m.type, "type"),
      regex: str(m.regex, "regex"),
      secret: str(m.secret, "secret"),
      value: str(m.value, "value"),
      ipRange: str(m["ip-range"], "ip-range"),
      parameter: argument(m.parameter ?? {}),
    };
    return { match };
  }
  return { empty: true };
}

function args(raw: unknown): Argument[] {
  return list(raw, "arguments").map(argument);
}

function argument(raw: unknown): Argument {
  const a = fields(raw, "hook.Argument");
  return {
    source: str(a.source, "source"),
    name: str(a.name, "name"),
    envname: str(a.envname, "envname"),
    base64decode: bool(a.base64decode, "base64decode"),
  };
}

/** An object's fields with lower-cased keys: Go's JSON decoder matches field names case-insensitively. */
function fields(raw: unknown, type: string): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new HooksFileError(`json: cannot unmarshal ${goType(raw)} into Go value of type ${type}`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (!(key in out)) out[key] = v;
  }
  return out;
}

function str(raw: unknown, field: string): string {
  if (raw === undefined || raw === null) return "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "number")
    return Number.isInteger(raw)
      ? String(raw)
      : String(Math.fround(raw) === raw ? raw : Number(Math.fround(raw).toPrecision(7)));
  if (typeof raw === "boolean") return raw ? "true" : "false";
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field .${field} of type string`,
  );
}

function int(raw: unknown, field: string): number {
  if (raw === undefined || raw === null) return 0;
  if (typeof raw === "number" && Number.isInteger(raw)) return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field .${field} of type int`,
  );
}

function bool(raw: unknown, field: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === "boolean") return raw;
  throw new HooksFileError(
    `json: cannot unmarshal ${goType(raw)} into Go struct field .${field} of type bool`,
  );
}

function list(raw: unknown, field: string): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) return raw;
  throw new HooksFileError(`json: cannot unmarshal ${goType(raw)} into Go struct field .${field} of type []`);
}

function goType(raw: unknown): string {
  if (Array.isArray(raw)) return "array";
  if (typeof raw === "object") return "object";
  return typeof raw;
}

/**
 * Expands the subset of Go's text/template that hooks files use: `{{ getenv "NAME" }}`, optionally piped through
 * `js`, with `{{-`/`-}}` trimming. Anything else is refused rather than passed through silently.
 */
export function expandTemplate(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(
    /(\s*)\{\{(-?)\s*(.*?)\s*(-?)\}\}(\s*)/gs,
    (_all, before: string, trimLeft: string, action: string, trimRight: string, after: string) => {
      const m = /^getenv\s+"((?:[^"\\]|\\.)*)"\s*(?:\|\s*(js))?$/.exec(action);
      if (!m)
        throw new HooksFileError(
          `template: hooks: unsupported action {{${action}}} (only getenv and js are supported)`,
        );
      let value = env[JSON.parse(`"${m[1] ?? ""}"`) as string] ?? "";
      if (m[2] === "js") value = goJsEscape(value);
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
