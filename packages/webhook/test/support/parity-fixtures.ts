// Loads test/fixtures/parity: the parity suite's scenarios and hooks files as data, with the few values that can only
// be computed at run time (signatures, Scalr dates, multipart bodies, paths under the run's temporary directory)
// written as small `$` markers that this module expands. The markers are documented in test/fixtures/parity/README.md.
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One request sent to both servers, and what must hold of the two answers. */
export interface Scenario {
  readonly name: string;
  readonly server?: "main" | "b" | "c" | "d";
  readonly method?: string;
  readonly path: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string;
  /** The status the peer answers (the suite documents it; both sides must agree on it). */
  readonly status: number;
  /** The recorder the hook runs; `ran` says whether this request must have added a run to it. */
  readonly rec?: string;
  readonly ran?: boolean;
  /** The command runs after the answer (no output in the response): wait for its record. */
  readonly async?: boolean;
  /** A line both servers must have logged. */
  readonly log?: string;
}

/** The boundary `$multipart` bodies use; the fixtures' Content-Type headers name it. */
export const MULTIPART_BOUNDARY = "XyZ123";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function fail(file: string, what: string): never {
  throw new Error(`${file}: ${what} (see test/fixtures/parity/README.md for the fixture format)`);
}

/** The one `$marker` key of an object, if it is a marker. */
function markerOf(v: JsonObject): string | undefined {
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0]?.startsWith("$") ? keys[0] : undefined;
}

function str(file: string, v: Json | undefined, what: string): string {
  if (typeof v !== "string") fail(file, `${what} must be a string`);
  return v;
}

function hmacHex(file: string, spec: JsonObject): string {
  const alg = str(file, spec.alg, "$hmac.alg");
  return createHmac(alg, str(file, spec.secret, "$hmac.secret"))
    .update(str(file, spec.of, "$hmac.of"))
    .digest("hex");
}

/** Go's "Mon 02 Jan 2006 15:04:05 MST" layout, `offsetSeconds` from now, as Scalr's Date header. */
function scalrDate(offsetSeconds: number): string {
  const d = new Date(Date.now() + offsetSeconds * 1000);
  const [weekday, day, mon, year, time] = d.toUTCString().replace(",", "").split(" ");
  return `${weekday} ${day} ${mon} ${year} ${time} GMT`;
}

function multipart(file: string, parts: Json): string {
  if (!Array.isArray(parts)) fail(file, "$multipart must be a list of parts");
  const encoded = parts.map((p) => {
    if (!isObject(p)) fail(file, "a $multipart part must be an object");
    const name = str(file, p.name, "part name");
    const value = str(file, p.value, "part value");
    const filename = p.filename === undefined ? "" : `; filename="${str(file, p.filename, "filename")}"`;
    const type = p.type === undefined ? "" : `Content-Type: ${str(file, p.type, "part type")}\r\n`;
    return `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename}\r\n${type}\r\n${value}\r\n`;
  });
  return [...encoded, `--${MULTIPART_BOUNDARY}--\r\n`].join("");
}

/** Expands the request markers of one scenario value; anything else stays as written. */
function expandRequest(file: string, v: Json): Json {
  if (Array.isArray(v)) return v.map((x) => expandRequest(file, x));
  if (!isObject(v)) return v;
  const marker = markerOf(v);
  const arg = marker === undefined ? undefined : v[marker];
  switch (marker) {
    case undefined:
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandRequest(file, x)]));
    case "$hmac": {
      if (arg === undefined || !isObject(arg)) return fail(file, "$hmac takes an object");
      const prefix = arg.prefix === undefined ? "" : str(file, arg.prefix, "$hmac.prefix");
      const hex = hmacHex(file, arg);
      return prefix + (arg.upper === true ? hex.toUpperCase() : hex);
    }
    case "$multipart":
      return multipart(file, arg ?? null);
    case "$scalr": {
      // Both headers from one clock reading, so the signed date is the sent date.
      if (arg === undefined || !isObject(arg) || typeof arg.dateOffset !== "number")
        return fail(file, "$scalr takes {secret, of, dateOffset}");
      const date = scalrDate(arg.dateOffset);
      const of = str(file, arg.of, "$scalr.of") + date;
      return [
        ["X-Signature", hmacHex(file, { alg: "sha1", secret: arg.secret ?? null, of })],
        ["Date", date],
      ];
    }
    default:
      return fail(file, `unknown marker ${marker} in a scenario`);
  }
}

/** Every scenario of every `NN-topic.json` file of `dir`, in file order then in each file's order. */
export function loadScenarios(dir: string): Scenario[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d\d-[a-z0-9-]+\.json$/.test(f))
    .sort();
  return files.flatMap((f) => {
    const parsed = JSON.parse(readFileSync(join(dir, f), "utf8")) as Json;
    if (!isObject(parsed) || !Array.isArray(parsed.scenarios))
      return fail(f, "expected {about, scenarios: [...]}");
    return parsed.scenarios.map((s) => {
      const expanded = expandRequest(f, s);
      if (!isObject(expanded) || typeof expanded.name !== "string" || typeof expanded.path !== "string")
        return fail(f, `a scenario needs a name and a path: ${JSON.stringify(s)}`);
      return expanded as unknown as Scenario;
    });
  });
}

/** A recorder a hooks file asks for: its runs land in `<side>/rec/<name>.jsonl`. */
export interface Recorder {
  readonly name: string;
  readonly exit?: number;
  readonly stderr?: boolean;
}

/** Where the hooks files' markers point, and the recorders they name (appended in the order met). */
export interface HooksContext {
  /** The run's temporary directory (`$root` paths are under it). */
  readonly root: string;
  /** The path of a recorder script, registering it. */
  readonly recorder: (r: Recorder) => string;
}

const TEMPLATE_SLOT = (i: number) => `@@template:${i}@@`;

function expandHooks(file: string, v: Json, ctx: HooksContext, templates: string[]): Json {
  if (Array.isArray(v)) return v.map((x) => expandHooks(file, x, ctx, templates));
  if (!isObject(v)) return v;
  const marker = markerOf(v);
  const arg = marker === undefined ? null : (v[marker] ?? null);
  switch (marker) {
    case undefined:
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandHooks(file, x, ctx, templates)]));
    case "$recorder": {
      if (typeof arg === "string") return ctx.recorder({ name: arg });
      if (!isObject(arg)) return fail(file, "$recorder takes a name or {name, exit?, stderr?}");
      return ctx.recorder({
        name: str(file, arg.name, "$recorder.name"),
        ...(typeof arg.exit === "number" ? { exit: arg.exit } : {}),
        ...(arg.stderr === true ? { stderr: true } : {}),
      });
    }
    case "$root":
      return join(ctx.root, str(file, arg, "$root"));
    case "$repeat": {
      if (!isObject(arg) || typeof arg.times !== "number") return fail(file, "$repeat takes {text, times}");
      return str(file, arg.text, "$repeat.text").repeat(arg.times);
    }
    case "$template":
      templates.push(str(file, arg, "$template"));
      return TEMPLATE_SLOT(templates.length - 1);
    default:
      return fail(file, `unknown marker ${marker} in a hooks file`);
  }
}

/**
 * The text of a JSON hooks fixture with its markers expanded. `indent` is JSON.stringify's: the files are written
 * as the suite always wrote them.
 */
export function hooksJson(
  dir: string,
  file: string,
  options: { ctx: HooksContext; indent?: number },
): string {
  const templates: string[] = [];
  const data = expandHooks(
    file,
    JSON.parse(readFileSync(join(dir, file), "utf8")) as Json,
    options.ctx,
    templates,
  );
  let text = JSON.stringify(data, null, options.indent);
  // A `$template` is written unescaped inside its quotes: it is Go template text for -template, not a JSON string.
  templates.forEach((t, i) => {
    text = text.replace(TEMPLATE_SLOT(i), t);
  });
  return text;
}

/** The text of a YAML (or verbatim) hooks fixture, each `@@recorder:NAME@@` replaced by that recorder's path. */
export function hooksText(dir: string, file: string, ctx: HooksContext): string {
  return readFileSync(join(dir, file), "utf8").replace(/@@recorder:([a-z0-9-]+)@@/g, (_, name: string) =>
    ctx.recorder({ name }),
  );
}
