// Seeded random hooks files and command lines for test/startup-fuzz.peers.test.ts: hooks files with defects (broken
// JSON or YAML at a random place, a wrong type for a field, unknown and differently cased keys, repeated ids, an
// object or a scalar instead of a list, empty files, a BOM, CRLF) and flag combinations (repeated, unknown, bad
// values, Go's number forms). What the package README lists as a difference (explicit YAML tags, several YAML
// documents, -setuid/-setgid, flags beyond 2.8.0) is never drawn.
import { stringify } from "yaml";
import type { Rng } from "./parity-fuzz-cases.js";

/** Ids drawn for hooks: repeats across and within files are likely; some read differently in YAML (`yes`, `1`). */
export const IDS = [
  "a",
  "b",
  "c",
  "A",
  "x y",
  "é",
  "constructor",
  "__proto__",
  "toString",
  "1",
  "yes",
  "a/b",
];

/** What a hooks file holds: its text, and whether it was written as the generator meant it (before defects). */
export interface HooksFileCase {
  readonly name: string;
  readonly text: string;
  readonly defects: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value of the wrong type for a field, or a right one spelled oddly. */
const ODD_VALUES: readonly Json[] = [
  5,
  1.5,
  true,
  false,
  null,
  "",
  "true",
  "200",
  [],
  ["x"],
  {},
  { a: 1 },
  -1,
  201,
];
const FIELDS = [
  "id",
  "execute-command",
  "response-message",
  "include-command-output-in-response",
  "success-http-response-code",
  "trigger-rule-mismatch-http-response-code",
  "http-methods",
  "pass-arguments-to-command",
  "trigger-rule",
  "response-headers",
  "command-working-directory",
  "incoming-payload-content-type",
];
const UNKNOWN_KEYS = [
  "foo",
  "ID",
  "Execute-Command",
  "Response-Message",
  "constructor",
  "__proto__",
  "trigger_rule",
];

function hook(rng: Rng, file: string, index: number): Record<string, Json> {
  const h: Record<string, Json> = {
    id: rng.pick(IDS),
    "execute-command": "/bin/true",
    "response-message": `${file}#${index}`,
  };
  if (rng.chance(0.15)) h["http-methods"] = rng.pick([["POST"], ["get", " post "], []]);
  if (rng.chance(0.1))
    h["trigger-rule"] = { match: { type: "value", value: "v", parameter: { source: "url", name: "q" } } };
  return h;
}

/** Text that upsets a parser, put somewhere in the file. */
const BREAKERS = [
  "{",
  "}",
  "[",
  "]",
  ":",
  '"',
  "'",
  ",",
  "\t",
  "- ",
  "\n  x",
  "#",
  "|",
  ">",
  "?",
  "%",
  "@",
  "`",
  "\u0000",
];

/** Scalars yaml.v2 types its own way (YAML 1.1 booleans, Go's number forms, floats, nulls), quoting and styles. */
const RAW_SCALARS = [
  "0x1F",
  "012",
  "1.50",
  "1e3",
  "1e+3",
  "1_000",
  "~",
  "null",
  "yes",
  "Off",
  "'quoted'",
  '"esc\\u00e9"',
  "2001-01-01",
  "1:30",
  ".inf",
  "-.5",
  "+1",
  "0b101",
  "a # comment",
  '"a\\tb"',
  "|\n    block",
  ">-\n    folded\n    text",
  "&x anchored",
  "-1",
  "0o17",
  "1.0",
  "'it''s'",
  '""',
  "[a]",
  "{a: 1}",
  "08",
  "9223372036854775808",
  "x y",
];

/** A YAML hooks file written by hand: ids and fields as raw scalars, a repeated key, an alias, a merge key. */
function rawYaml(rng: Rng, name: string): string {
  const lines: string[] = [];
  for (let i = rng.int(4); i >= 0; i--) {
    lines.push(
      `- id: ${rng.pick(RAW_SCALARS)}`,
      "  execute-command: /bin/true",
      `  response-message: ${name}#${i}`,
    );
    if (rng.chance(0.2)) lines.push(`  id: ${rng.pick(IDS)}`);
    if (rng.chance(0.2)) lines.push(`  ${rng.pick(FIELDS)}: ${rng.pick(RAW_SCALARS)}`);
    if (rng.chance(0.1)) lines.push("  <<: {id: merged}");
    if (rng.chance(0.1)) lines.push("  response-message: *x");
  }
  return `${lines.join("\n")}\n`;
}

/** A hooks file of 0-4 hooks, written as JSON or YAML (sometimes by hand), with 0-2 defects. */
export function hooksFileCase(rng: Rng, name: string): HooksFileCase {
  if (rng.chance(0.2)) return { name, text: rawYaml(rng, name), defects: ["raw YAML"] };
  const hooks = rng.times(4, () => 0).map((_, i) => hook(rng, name, i));
  const defects: string[] = [];
  let doc: Json = hooks;
  for (let d = rng.int(3); d > 0; d--) {
    const kind = rng.pick(["type", "unknown", "shape"] as const);
    const target = hooks.length > 0 ? rng.pick(hooks) : undefined;
    if (kind === "type" && target !== undefined) {
      const field = rng.pick(FIELDS);
      target[field] = rng.pick(ODD_VALUES);
      defects.push(`${field}=${JSON.stringify(target[field])}`);
    } else if (kind === "unknown" && target !== undefined) {
      const key = rng.pick(UNKNOWN_KEYS);
      target[key] = rng.pick(["x", "b", 1]);
      defects.push(`key ${key}`);
    } else if (kind === "shape") {
      doc = rng.pick<Json>([hooks[0] ?? {}, "x", 5, null, true, [null], [[]], ["a"], { hooks }]);
      defects.push(`document ${JSON.stringify(doc).slice(0, 40)}`);
    }
  }
  const yaml = rng.chance(0.5);
  let text = yaml
    ? stringify(doc, {
        flowCollectionPadding: false,
        ...(rng.chance(0.3) ? { collectionStyle: "flow" } : {}),
      })
    : JSON.stringify(doc, null, rng.pick([0, 1, 2, "\t"]));
  if (rng.chance(0.25)) {
    // Broken at a random place: a character inserted, or the text cut short.
    const at = rng.int(text.length + 1);
    if (rng.chance(0.3)) {
      text = text.slice(0, at);
      defects.push(`cut at ${at}`);
    } else {
      const breaker = rng.pick(BREAKERS);
      text = text.slice(0, at) + breaker + text.slice(at);
      defects.push(`${JSON.stringify(breaker)} at ${at}`);
    }
  }
  if (rng.chance(0.25)) {
    // A line indented otherwise, a comment, a complex key, a multi-line scalar or a key spelled `id :` put in.
    const lines = text.split("\n");
    const at = rng.int(lines.length);
    const line = lines[at] ?? "";
    const edit = rng.pick([
      () => ` ${line}`,
      () => line.replace(/^ {1,2}/, ""),
      () => `${line} # note`,
      () => `${line}\n  # note`,
      () => `${line}\n? x\n: y`,
      () => line.replace(": ", " : "),
      () => line.replace(": ", ":\n    "),
      () => `${line}\n  response-message: 'two\n    lines'`,
      () => `${line}\n  response-message: >\n    folded\n\n    text`,
      () => line.replace(/"([^"]*)"/, "'$1'"),
      () => `${line} ${rng.pick(["{}", "[]", "&a", "*a", "!", "|", "@x", "%", "`"])}`,
    ]);
    lines[at] = edit();
    text = lines.join("\n");
    defects.push(`line ${at} edited`);
  }
  if (rng.chance(0.08)) {
    text = rng.pick(["", "\n", "  \n\t\n", "# nothing\n", "[]", "null", "~", "{}"]);
    defects.push("empty");
  }
  if (rng.chance(0.15)) {
    text = text.replaceAll("\n", "\r\n");
    defects.push("CRLF");
  }
  if (rng.chance(0.1)) {
    text = `\uFEFF${text}`;
    defects.push("BOM");
  }
  return { name, text, defects };
}

/** Whether ours refuses the text on purpose where yaml.v2 reads it (README: tags, several documents). */
export function documentedYamlDifference(text: string): boolean {
  return /^(---|\.\.\.)/m.test(text) || /(^|[\s[{,:])!/.test(text) || /^%/m.test(text);
}

/** A command line's flags past `-ip` and `-port` (which come first, so a stray argument cannot move the port). */
export function fuzzArgs(rng: Rng, files: readonly string[]): string[] {
  const args: string[] = [];
  const flag = (name: string, value?: string) => {
    const dashes = rng.chance(0.2) ? "--" : "-";
    if (value === undefined) args.push(`${dashes}${name}`);
    else if (rng.chance(0.3)) args.push(`${dashes}${name}=${value}`);
    else args.push(`${dashes}${name}`, value);
  };
  for (const f of files) flag("hooks", f);
  const options: (() => void)[] = [
    () => flag("verbose"),
    () => flag("verbose"),
    () =>
      flag(
        rng.pick(["verbose", "nopanic", "debug", "x-request-id", "hotreload", "template"]),
        rng.pick(["true", "false", "1", "F", "TRUE", "yes", ""]),
      ),
    () => flag("nopanic"),
    () => flag("debug"),
    () => flag("hotreload"),
    () => flag("template"),
    () => flag("urlprefix", rng.pick(["hooks", "", "api/v1", "x y", "é", "/lead", "trail/", "a%2Fb"])),
    () => flag("http-methods", rng.pick(["", "post", "POST,get", ",", " Put ", "DELETE"])),
    () => flag("header", rng.pick(["X-A=1", "X-B=", "=v", "X-C=a=b", "noequals", "X-D=é"])),
    () => flag("x-request-id"),
    () =>
      flag(
        "x-request-id-limit",
        rng.pick(["0", "4", "-1", "0x10", "010", "1_0", "abc", "99999999999999999999", ""]),
      ),
    () =>
      flag(
        "max-multipart-mem",
        rng.pick(["1048576", "0", "-5", "1e3", "0b11", "1__0", "+7", "9223372036854775807"]),
      ),
    () => flag(rng.pick(["bogus", "Verbose", "hook", "-x", "=v"])),
    () => args.push(rng.pick(["-h", "-help", "--help", "-version", "extra", "--", "-"])),
    () => flag("port"),
    () => flag("logfile", rng.pick(["w.log", "w.log", ".", "sub/w.log", ""])),
    () => flag("pidfile", rng.pick(["w.pid", "sub/dir/w.pid", ".", ""])),
    // TLS settings: no certificate is there, so a -secure start logs its error and ends.
    () => flag("secure"),
    () => flag("tls-min-version", rng.pick(["1.0", "1.3", "9", "", "1.2 "])),
    () =>
      flag("cipher-suites", rng.pick(["", "TLS_AES_128_GCM_SHA256", "bogus", "TLS_RSA_WITH_RC4_128_SHA,"])),
    () => flag(rng.pick(["cert", "key"]), rng.pick(["nope.pem", ".", ""])),
    () => flag("list-cipher-suites"),
  ];
  for (let n = rng.int(6); n > 0; n--) rng.pick(options)();
  return args;
}

/** A hooks file's text for the reload sequences: ids in order, each answering with `<file>#<index>`. */
export function reloadText(name: string, ids: readonly string[], yaml: boolean): string {
  const hooks = ids.map((id, i) => ({
    id,
    "execute-command": "/bin/true",
    "response-message": `${name}#${i}`,
  }));
  return yaml ? stringify(hooks) : JSON.stringify(hooks);
}
