// Side by side with Debian's /usr/bin/webhook 2.8.0 (the peer): the same hooks files and the same requests go to
// both, and the status, body, user-visible headers and the command's effect (what it recorded about its argv, env,
// cwd, stdin and files) must be identical. Where upstream surprises, the peer is the reference, not expectations.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { access, chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "./support/free-port.js";
import { type RawResponse, rawRequest } from "./support/raw-http.js";
import { ServerGroup } from "./support/server-group.js";

const PEER = "/usr/bin/webhook";
const OURS = fileURLToPath(new URL("../../bin/webhook.js", import.meta.url));
const SECRET = "It's a Secret to Everybody";
const TPL_TOKEN = 'tok"en';

type Side = "peer" | "ours";
type ServerName = "main" | "b" | "c" | "d";
interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  readonly dir: string;
  readonly log: string;
}

let root: string;
let wd: string;
const running = new Map<string, Running>();
const servers = new ServerGroup();

/** The argv of each server configuration (paths filled in once the fixture exists). */
function serverArgs(name: ServerName): string[] {
  switch (name) {
    case "main":
      return [
        ...[
          "-hooks",
          join(root, "hooks.json"),
          "-hooks",
          join(root, "hooks.yaml"),
          "-hooks",
          join(root, "quirks.json"),
        ],
        ...["-template", "-header", "X-Global=g1", "-header", "X-Other=o=2"],
      ];
    case "b":
      return ["-hooks", join(root, "b.json"), "-http-methods", "post, Put", "-urlprefix", "api/v1"];
    case "c":
      return ["-hooks", join(root, "c.json"), "-urlprefix", "", "-x-request-id", "-x-request-id-limit", "4"];
    case "d":
      return ["-hooks", join(root, "d.json"), "-debug", "-header", "X-D=1"];
  }
}

async function start(side: Side, name: ServerName): Promise<Running> {
  const dir = join(root, side);
  const port = await freePort();
  const argv = [...serverArgs(name), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  const [command, args] = side === "peer" ? [PEER, argv] : [process.execPath, [OURS, ...argv]];
  const started = await servers.start(command, args, {
    cwd: dir,
    env: sideEnv(side),
    ready: "serving hooks on",
  });
  return {
    child: started.child,
    port,
    dir,
    get log() {
      return started.log();
    },
  };
}

/** The environment both servers get; only the side's own directories differ, and the recorder hides them. */
function sideEnv(side: Side): Record<string, string> {
  const dir = join(root, side);
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    REC_DIR: join(dir, "rec"),
    SIDE_DIR: dir,
    WD_DIR: wd,
    TMPDIR: join(dir, "tmp"),
    TPL_TOKEN,
    TPL_PLAIN: "from-env",
  };
}

/** What each recorder run writes: one JSON line per run, with side-specific paths replaced. */
const RECORDER = `const fs = require("fs"), path = require("path");
const BASE = ["PATH", "REC_DIR", "SIDE_DIR", "WD_DIR", "TMPDIR", "TPL_TOKEN", "TPL_PLAIN"];
module.exports = function record(name, opts) {
  const side = process.env.SIDE_DIR, wd = process.env.WD_DIR;
  const norm = (s) => s.split(side).join("<side>").split(wd).join("<wd>");
  const env = {}, files = {}, paths = [];
  for (const k of Object.keys(process.env).sort()) {
    if (BASE.includes(k)) continue;
    const v = process.env[k];
    let isFile = false;
    try { isFile = path.isAbsolute(v) && fs.statSync(v).isFile(); } catch {}
    if (isFile) {
      files[k] = { dir: norm(path.dirname(v)), base: path.basename(v).replace(/[0-9]+$/, "#"), content: fs.readFileSync(v).toString("base64") };
      paths.push(v);
      env[k] = "<file>";
    } else env[k] = norm(v);
  }
  let stdin;
  try { stdin = fs.readFileSync(0).toString(); } catch (e) { stdin = "<" + e.code + ">"; }
  const entry = { args: process.argv.slice(2).map(norm), env, files, cwd: norm(process.cwd()), stdin };
  fs.appendFileSync(path.join(process.env.REC_DIR, name + ".jsonl"), JSON.stringify({ ...entry, paths }) + "\\n");
  process.stdout.write("ran " + name + " " + JSON.stringify(entry.args) + "\\n");
  if (opts.stderr) setTimeout(() => { process.stderr.write("to stderr\\n"); process.exit(opts.exit || 0); }, 150);
  else process.exit(opts.exit || 0);
};
`;

interface RecOptions {
  readonly exit?: number;
  readonly stderr?: boolean;
}
const recorders: [string, RecOptions][] = [];
/** A per-hook recorder script (absolute path); its runs land in `<side>/rec/<name>.jsonl`. */
function R(name: string, options: RecOptions = {}): string {
  recorders.push([name, options]);
  return join(root, "bin", name);
}

type Arg = { source: string; name: string; envname?: string; base64decode?: boolean };
const A = (source: string, name: string, extra: Partial<Arg> = {}): Arg => ({ source, name, ...extra });
const match = (m: Record<string, unknown>) => ({ match: m });
const value = (v: unknown, source: string, name: string) =>
  match({ type: "value", value: v, parameter: A(source, name) });
const sync = { "include-command-output-in-response": true };
const hmac = (type: string, header: string, secret = SECRET) =>
  match({ type, secret, parameter: A("header", header) });

function mainHooks(): Record<string, unknown>[] {
  return [
    {
      id: "sources",
      "execute-command": R("sources"),
      ...sync,
      "pass-arguments-to-command": [
        ...[A("payload", "a"), A("payload", "n.x"), A("payload", "arr.1"), A("payload", "arr.0.k")],
        ...[A("payload", "a.b"), A("payload", "missing"), A("payload", "root.0.e"), A("payload", "root.1")],
        ...[
          A("payload", "num"),
          A("payload", "big"),
          A("payload", "exp"),
          A("payload", "nul"),
          A("payload", "bool"),
        ],
        ...[A("payload", "obj"), A("payload", "r.a.#text"), A("payload", "r.a.-x"), A("payload", "r.b.1")],
        ...[A("header", "x-lower"), A("header", "X-Multi"), A("query", "q"), A("url", "q"), A("query", "Q")],
        ...[A("request", "method"), A("request", "METHOD"), A("request", "bogus"), A("string", "lit eral")],
        A("nosuchsource", "x"),
      ],
      "pass-environment-to-command": [
        A("entire-payload", "p", { envname: "EP" }),
        A("entire-headers", "h", { envname: "EH" }),
        A("entire-query", "q", { envname: "EQ" }),
        A("raw-request-body", "b", { envname: "RAW" }),
      ],
    },
    {
      id: "env",
      "execute-command": R("env"),
      ...sync,
      "pass-environment-to-command": [
        A("payload", "head_commit.timestamp"),
        A("header", "X-Token", { envname: "MY_TOKEN" }),
        A("query", "missing"),
        A("string", "const"),
        A("payload", "Name"),
      ],
    },
    {
      id: "files",
      "execute-command": R("files"),
      ...sync,
      "pass-file-to-command": [
        A("payload", "data"),
        A("payload", "b64", { envname: "B64FILE", base64decode: true }),
        A("payload", "bad64", { envname: "BAD64", base64decode: true }),
        A("entire-payload", "whole", { envname: "WHOLE" }),
        A("payload", "absent", { envname: "ABSENT" }),
      ],
    },
    {
      id: "files-wd",
      "execute-command": R("files-wd"),
      "command-working-directory": wd,
      ...sync,
      "pass-file-to-command": [A("payload", "data", { envname: "WDFILE" })],
    },
    {
      id: "pjson",
      "execute-command": R("pjson"),
      ...sync,
      "parse-parameters-as-json": [
        A("payload", "payload"),
        A("header", "x-json"),
        A("query", "qj"),
        A("payload", "nj"),
      ],
      "pass-arguments-to-command": [
        A("payload", "payload.canon_url"),
        A("header", "X-Json.a"),
        A("query", "qj.b.0"),
        A("payload", "nj"),
        A("entire-payload", "x"),
      ],
    },
    { id: "wd", "execute-command": "rec-wd", "command-working-directory": wd, ...sync },
    { id: "wd-echo", "execute-command": "echo", "command-working-directory": wd, ...sync },
    {
      id: "echo",
      "execute-command": "echo",
      ...sync,
      "pass-arguments-to-command": [A("string", "hello"), A("payload", "x")],
    },
    { id: "space", "execute-command": "/bin/echo hi", ...sync },
    { id: "missing", "execute-command": "/nonexistent/cmd", ...sync },
    {
      id: "missing-onerr",
      "execute-command": "/nonexistent/cmd",
      ...sync,
      "include-command-output-in-response-on-error": true,
    },
    { id: "noexec", ...sync },
    { id: "noexec-async", "response-message": "m" },
    { id: "fail", "execute-command": R("fail", { exit: 3 }), ...sync },
    {
      id: "fail-onerr",
      "execute-command": R("fail-onerr", { exit: 3 }),
      ...sync,
      "include-command-output-in-response-on-error": true,
    },
    { id: "fail-async", "execute-command": R("fail-async", { exit: 3 }), "response-message": "accepted" },
    { id: "stderr", "execute-command": R("stderr", { stderr: true }), ...sync },
    {
      id: "async",
      "execute-command": R("async"),
      "response-message": "queued\n",
      "success-http-response-code": 202,
      "response-headers": [
        { name: "X-Custom", value: "c1" },
        { name: "x-second", value: "s" },
      ],
    },
    { id: "async-empty", "execute-command": R("async-empty") },
    {
      id: "ctype",
      "execute-command": "/bin/echo",
      ...sync,
      "pass-arguments-to-command": [A("string", '{"a":1}')],
      "response-headers": [{ name: "Content-Type", value: "application/json" }],
    },
    {
      id: "json-out",
      "execute-command": "/bin/echo",
      ...sync,
      "pass-arguments-to-command": [A("string", '{"a":1}')],
    },
    {
      id: "html",
      "execute-command": "/bin/echo",
      ...sync,
      "pass-arguments-to-command": [A("string", "<!DOCTYPE html><p>x</p>")],
    },
    { id: "empty-out", "execute-command": "/bin/true", ...sync },
    // A script without `#!`: Go's exec fails with ENOEXEC where a shell (and node's execvp) would run it.
    { id: "no-shebang", "execute-command": join(root, "bin", "no-shebang"), ...sync },
    // Signals the command starts with: none ignored, whatever the server itself ignores (node: SIGPIPE).
    {
      id: "sig-ign",
      "execute-command": "/bin/grep",
      ...sync,
      "pass-arguments-to-command": [A("string", "^Sig[IB]"), A("string", "/proc/self/status")],
    },
    {
      id: "wd-is-file",
      "execute-command": "/bin/echo",
      "command-working-directory": "/etc/hostname",
      ...sync,
    },
    {
      id: "no-wd",
      "execute-command": "/bin/echo",
      "command-working-directory": "/nonexistent/wd",
      ...sync,
      "pass-file-to-command": [A("string", "f", { envname: "F" })],
    },
    {
      id: "no-wd-async",
      "execute-command": "/bin/echo",
      "command-working-directory": "/nonexistent/wd",
      "response-message": "ok",
      "pass-file-to-command": [A("string", "f", { envname: "F" })],
    },
    // Output chosen by the request (a printf format), to compare Go's content sniffing byte for byte.
    {
      id: "sniff",
      "execute-command": "/usr/bin/printf",
      ...sync,
      "pass-arguments-to-command": [A("url", "f")],
    },
    { id: "sniff-msg", "execute-command": "/bin/true", "response-message": "  <HTML><body>hi" },
    {
      id: "sniff-onerr",
      "execute-command": "/bin/sh",
      ...sync,
      "include-command-output-in-response-on-error": true,
      "pass-arguments-to-command": [
        A("string", "-c"),
        A("string", "printf '<?xml version=\"1.0\"?><a/>'; exit 2"),
      ],
    },
    {
      id: "long",
      "execute-command": "/bin/echo",
      ...sync,
      "pass-arguments-to-command": [A("string", "x".repeat(5000))],
    },
    {
      id: "codes",
      "execute-command": R("codes"),
      ...sync,
      "success-http-response-code": 201,
      "trigger-rule-mismatch-http-response-code": 403,
      "response-headers": [{ name: "X-Hook", value: "codes" }],
      "trigger-rule": value("t", "query", "token"),
    },
    {
      id: "badcodes",
      "execute-command": R("badcodes"),
      ...sync,
      "success-http-response-code": 999,
      "trigger-rule-mismatch-http-response-code": 999,
      "trigger-rule": value("t", "query", "token"),
    },
    { id: "value", "execute-command": R("value"), ...sync, "trigger-rule": value("s3", "payload", "token") },
    {
      id: "value-num",
      "execute-command": R("value-num"),
      ...sync,
      "trigger-rule": value(42, "payload", "n"),
    },
    { id: "tpl", "execute-command": R("tpl"), ...sync, "trigger-rule": value("@@TPL@@", "payload", "token") },
    {
      id: "regex",
      "execute-command": R("regex"),
      ...sync,
      "trigger-rule": match({ type: "regex", regex: "heads/(main|dev)", parameter: A("payload", "ref") }),
    },
    {
      id: "regex-bad",
      "execute-command": R("regex-bad"),
      ...sync,
      "trigger-rule": match({ type: "regex", regex: "(", parameter: A("payload", "ref") }),
    },
    {
      id: "remote",
      "execute-command": R("remote"),
      ...sync,
      "trigger-rule": match({
        type: "regex",
        regex: "^127\\.0\\.0\\.1:[0-9]+$",
        parameter: A("request", "remote-addr"),
      }),
    },
    {
      id: "hmac1",
      "execute-command": R("hmac1"),
      ...sync,
      "trigger-rule": hmac("payload-hmac-sha1", "X-Hub-Signature"),
    },
    {
      id: "hmac256",
      "execute-command": R("hmac256"),
      ...sync,
      "pass-arguments-to-command": [A("payload", "n")],
      "trigger-rule": hmac("payload-hmac-sha256", "X-Hub-Signature-256"),
    },
    {
      id: "hmac512",
      "execute-command": R("hmac512"),
      ...sync,
      "trigger-rule": hmac("payload-hmac-sha512", "X-Sig"),
    },
    {
      id: "hash256",
      "execute-command": R("hash256"),
      ...sync,
      "trigger-rule": hmac("payload-hash-sha256", "X-Sig"),
    },
    {
      id: "hmac-empty",
      "execute-command": R("hmac-empty"),
      ...sync,
      "trigger-rule": hmac("payload-hmac-sha256", "X-Sig", ""),
    },
    {
      id: "soft",
      "execute-command": R("soft"),
      ...sync,
      "trigger-signature-soft-failures": true,
      "trigger-rule": { or: [hmac("payload-hmac-sha256", "X-Sig"), value("t", "query", "token")] },
    },
    {
      id: "nosoft",
      "execute-command": R("nosoft"),
      ...sync,
      "trigger-rule": { or: [hmac("payload-hmac-sha256", "X-Sig"), value("t", "query", "token")] },
    },
    {
      id: "soft-top",
      "execute-command": R("soft-top"),
      ...sync,
      "trigger-signature-soft-failures": true,
      "trigger-rule": hmac("payload-hmac-sha256", "X-Sig"),
    },
    {
      id: "and",
      "execute-command": R("and"),
      ...sync,
      "trigger-rule": {
        and: [
          value("1", "payload", "a"),
          match({ type: "regex", regex: "^x", parameter: A("payload", "b") }),
        ],
      },
    },
    {
      id: "or",
      "execute-command": R("or"),
      ...sync,
      "trigger-rule": { or: [value("1", "payload", "a"), value("2", "payload", "b")] },
    },
    { id: "not", "execute-command": R("not"), ...sync, "trigger-rule": { not: value("1", "payload", "a") } },
    { id: "empty-rule", "execute-command": R("empty-rule"), ...sync, "trigger-rule": {} },
    {
      id: "ipwl",
      "execute-command": R("ipwl"),
      ...sync,
      "trigger-rule": match({ type: "ip-whitelist", "ip-range": "127.0.0.0/8" }),
    },
    {
      id: "ipwl-bare",
      "execute-command": R("ipwl-bare"),
      ...sync,
      "trigger-rule": match({ type: "ip-whitelist", "ip-range": "10.0.0.1   127.0.0.1" }),
    },
    {
      id: "ipwl-no",
      "execute-command": R("ipwl-no"),
      ...sync,
      "trigger-rule": match({ type: "ip-whitelist", "ip-range": "10.0.0.0/8" }),
    },
    {
      id: "ipwl-bad",
      "execute-command": R("ipwl-bad"),
      ...sync,
      "trigger-rule": match({ type: "ip-whitelist", "ip-range": "bogus" }),
    },
    {
      id: "scalr",
      "execute-command": R("scalr"),
      ...sync,
      "trigger-rule": match({ type: "scalr-signature", secret: SECRET }),
    },
    {
      id: "unknown-type",
      "execute-command": R("unknown-type"),
      ...sync,
      "trigger-rule": match({ type: "nope" }),
    },
    {
      id: "unknown-type-param",
      "execute-command": R("unknown-type-param"),
      ...sync,
      "trigger-rule": match({ type: "nope", parameter: A("string", "x") }),
    },
    { id: "methods", "execute-command": R("methods"), ...sync, "http-methods": ["Post ", " put"] },
    { id: "a/b", "execute-command": R("slash"), ...sync },
    { id: "sp ace", "execute-command": R("space-id"), ...sync },
    {
      id: "ctover",
      "execute-command": R("ctover"),
      ...sync,
      "incoming-payload-content-type": "application/json",
      "pass-arguments-to-command": [A("payload", "a")],
    },
  ];
}

const YAML_HOOKS = (rec: string) => `# YAML hooks, expanded as a template too
- id: yaml-hook
  execute-command: ${rec}
  include-command-output-in-response: true
  pass-arguments-to-command:
    - source: payload
      name: a
  trigger-rule:
    match:
      type: value
      value: yes
      parameter:
        source: payload
        name: flag
- id: yes
  execute-command: /bin/echo
  include-command-output-in-response: true
  pass-arguments-to-command: [{source: string, name: truthy}]
- ID: Case-Fields
  Execute-Command: /bin/echo
  Include-Command-Output-In-Response: true
  Pass-Arguments-To-Command: [{Source: string, Name: 1.5}, {source: string, name: 7}, {source: string, name: off}]
- id: yaml-tpl
  execute-command: /bin/echo
  include-command-output-in-response: true
  pass-arguments-to-command: [{source: string, name: '{{ getenv "TPL_PLAIN" }}-{{ getenv "UNSET_VAR" }}'}]
`;

// JSON as upstream's YAML decoder accepts it: trailing commas and tabs inside flow collections.
const QUIRKS = `[
\t{"id": "quirk", "execute-command": "/bin/echo", "include-command-output-in-response": true,
\t "pass-arguments-to-command": [ {"source": "string", "name": 1}, {"source": "string", "name": true}, ], },
]`;

function bHooks(): Record<string, unknown>[] {
  return [
    { id: "b-default", "execute-command": R("b-default"), ...sync },
    { id: "b-own", "execute-command": R("b-own"), ...sync, "http-methods": ["get"] },
  ];
}

function cHooks(): Record<string, unknown>[] {
  return [
    { id: "c", "execute-command": R("c"), ...sync, "pass-arguments-to-command": [A("request", "method")] },
  ];
}

// The -debug server: only hooks whose commands end before the answer, so both logs have one deterministic order.
const D_HOOKS = [
  {
    id: "ok",
    "execute-command": "/bin/echo",
    ...sync,
    "pass-arguments-to-command": [A("payload", "a"), A("payload", "missing"), A("header", "X-A")],
    "pass-environment-to-command": [A("payload", "a"), A("query", "q", { envname: "Q" })],
    "response-headers": [{ name: "X-R", value: "r" }],
  },
  { id: "rule", "execute-command": "/bin/true", ...sync, "trigger-rule": value("x", "payload", "t") },
  {
    id: "sig",
    "execute-command": "/bin/true",
    ...sync,
    "trigger-rule": hmac("payload-hmac-sha256", "X-Sig"),
  },
  { id: "meth", "execute-command": "/bin/true", ...sync, "http-methods": ["POST"] },
  { id: "fail", "execute-command": "/bin/false", ...sync },
  { id: "missing", "execute-command": "/nonexistent/cmd x", ...sync },
  { id: "code", "execute-command": "/bin/true", ...sync, "success-http-response-code": 999 },
  {
    id: "html",
    "execute-command": "/bin/echo",
    ...sync,
    "pass-arguments-to-command": [A("string", "<html>")],
  },
];

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-parity-"));
  wd = join(root, "wd");
  for (const d of ["bin", "wd", "peer/rec", "peer/tmp", "ours/rec", "ours/tmp"])
    await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, "recorder.cjs"), RECORDER);
  const main = JSON.stringify(mainHooks(), null, 1).replace("@@TPL@@", '{{ getenv "TPL_TOKEN" | js }}');
  await writeFile(join(root, "hooks.json"), main);
  await writeFile(join(root, "hooks.yaml"), YAML_HOOKS(R("yaml")));
  await writeFile(join(root, "quirks.json"), QUIRKS);
  await writeFile(join(root, "b.json"), JSON.stringify(bHooks()));
  await writeFile(join(root, "c.json"), JSON.stringify(cHooks()));
  await writeFile(join(root, "d.json"), JSON.stringify(D_HOOKS));
  const script = (name: string, options: RecOptions) =>
    `#!${process.execPath}\nrequire(${JSON.stringify(join(root, "recorder.cjs"))})(${JSON.stringify(name)}, ${JSON.stringify(options)});\n`;
  await writeFile(join(root, "bin", "no-shebang"), `touch ${join(root, "no-shebang-ran")}\n`, {
    mode: 0o755,
  });
  for (const [name, options] of [...recorders, ["wd", {}] as [string, RecOptions]]) {
    const path = name === "wd" ? join(wd, "rec-wd") : join(root, "bin", name);
    await writeFile(path, script(name, options));
    await chmod(path, 0o755);
  }
  const names: ServerName[] = ["main", "b", "c", "d"];
  // allSettled, not all: when one start fails, the others must have spawned (and so be in `servers` for the
  // after hook to stop) before this hook rejects.
  const started = await Promise.allSettled(
    names.flatMap((n) =>
      (["peer", "ours"] as const).map(async (side) => [`${side}:${n}`, await start(side, n)] as const),
    ),
  );
  for (const result of started) {
    if (result.status === "rejected") throw result.reason;
    running.set(result.value[0], result.value[1]);
  }
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

interface Scenario {
  readonly name: string;
  readonly server?: ServerName;
  readonly method?: string;
  readonly path: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
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

const JSON_CT = ["Content-Type", "application/json"] as const;
const FORM_CT = ["Content-Type", "application/x-www-form-urlencoded"] as const;
const sign = (alg: string, body: string, secret = SECRET) =>
  createHmac(alg, secret).update(body).digest("hex");
const B256 = '{"n": 1.50, "x": [1, {"b": true}]}';
const S256 = sign("sha256", B256);
const MP_BOUNDARY = "XyZ123";
const multipart = (parts: { name: string; value: string; filename?: string; type?: string }[]) =>
  parts
    .map(
      (p) =>
        `--${MP_BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n${p.value}\r\n`,
    )
    .join("") + `--${MP_BOUNDARY}--\r\n`;
const MP_CT = ["Content-Type", `multipart/form-data; boundary=${MP_BOUNDARY}`] as const;
const scalrDate = (offsetSeconds: number) => {
  // Go's "Mon 02 Jan 2006 15:04:05 MST" layout.
  const d = new Date(Date.now() + offsetSeconds * 1000);
  const [wd2, day, mon, year, time] = d.toUTCString().replace(",", "").split(" ");
  return `${wd2} ${day} ${mon} ${year} ${time} GMT`;
};
const scalr = (body: string, date: string, secret = SECRET) =>
  [
    [
      "X-Signature",
      createHmac("sha1", secret)
        .update(body + date)
        .digest("hex"),
    ],
    ["Date", date],
  ] as const;

const SCENARIOS: readonly Scenario[] = [
  // Routing, outside any hook.
  { name: "GET / answers OK", path: "/", method: "GET", status: 200 },
  { name: "HEAD / answers 200 without a body", path: "/", method: "HEAD", status: 200 },
  { name: "POST / answers OK too", path: "/", method: "POST", body: "x", status: 200 },
  { name: "/hooks without a slash is the router's 404", path: "/hooks", method: "GET", status: 404 },
  { name: "a path outside the prefix is the router's 404", path: "/other/x", method: "GET", status: 404 },
  { name: "/hooks/ is Hook not found", path: "/hooks/", method: "GET", status: 404 },
  { name: "an unknown id is Hook not found", path: "/hooks/nope", method: "POST", status: 404 },
  { name: "ids are case-sensitive", path: "/hooks/ENV", method: "POST", status: 404, rec: "env", ran: false },
  { name: "//hooks/x redirects to the clean path", path: "//hooks/empty-out", method: "GET", status: 301 },
  { name: "/hooks/./x redirects", path: "/hooks/./empty-out?a=1", method: "POST", status: 301 },
  { name: "/hooks/a/../x redirects", path: "/hooks/a/../empty-out", method: "GET", status: 301 },
  { name: "a trailing slash is part of the id", path: "/hooks/empty-out/", method: "GET", status: 404 },
  {
    name: "an id with '/' is served",
    path: "/hooks/a/b",
    method: "POST",
    status: 200,
    rec: "slash",
    ran: true,
  },
  { name: "a prefix of an id with '/' is not found", path: "/hooks/a", method: "POST", status: 404 },
  {
    name: "an id with a space, percent-encoded",
    path: "/hooks/sp%20ace",
    method: "POST",
    status: 200,
    rec: "space-id",
    ran: true,
  },
  { name: "a percent-encoded id letter", path: "/hooks/empty-%6Fut", method: "POST", status: 200 },

  // Methods.
  {
    name: "hook methods are trimmed and upper-cased: POST",
    path: "/hooks/methods",
    method: "POST",
    status: 200,
    rec: "methods",
    ran: true,
  },
  {
    name: "hook methods: PUT",
    path: "/hooks/methods",
    method: "PUT",
    status: 200,
    rec: "methods",
    ran: true,
  },
  {
    name: "hook methods: GET is 405 with an empty body",
    path: "/hooks/methods",
    method: "GET",
    status: 405,
    rec: "methods",
    ran: false,
  },
  {
    name: "hook methods: HEAD is 405",
    path: "/hooks/methods",
    method: "HEAD",
    status: 405,
    rec: "methods",
    ran: false,
  },
  {
    name: "hook methods: OPTIONS is 405",
    path: "/hooks/methods",
    method: "OPTIONS",
    status: 405,
    rec: "methods",
    ran: false,
  },
  {
    name: "hook methods: 'post' (raw, lower case) is 405",
    path: "/hooks/methods",
    method: "post",
    status: 405,
    rec: "methods",
    ran: false,
  },
  {
    name: "hook methods: 'Put' (raw, mixed case) is 405",
    path: "/hooks/methods",
    method: "Put",
    status: 405,
    rec: "methods",
    ran: false,
  },
  {
    name: "a custom method on an unknown id is Hook not found",
    path: "/hooks/zz",
    method: "PURGE2",
    status: 404,
  },
  {
    name: "a custom method with a body outside the prefix",
    path: "/x",
    method: "fetch",
    body: "abc",
    status: 404,
  },
  {
    name: "no method list: HEAD runs the command",
    path: "/hooks/sp%20ace",
    method: "HEAD",
    status: 200,
    rec: "space-id",
    ran: true,
  },
  {
    name: "no method list: OPTIONS runs the command",
    path: "/hooks/sp%20ace",
    method: "OPTIONS",
    status: 200,
    rec: "space-id",
    ran: true,
  },
  {
    name: "no method list: an unusual method 'Get' runs it",
    path: "/c",
    server: "c",
    method: "Get",
    status: 200,
    rec: "c",
    ran: true,
  },
  {
    name: "-http-methods: POST allowed",
    server: "b",
    path: "/api/v1/b-default",
    method: "POST",
    status: 200,
    rec: "b-default",
    ran: true,
  },
  {
    name: "-http-methods: 'Put' given is upper-cased",
    server: "b",
    path: "/api/v1/b-default",
    method: "PUT",
    status: 200,
    rec: "b-default",
    ran: true,
  },
  {
    name: "-http-methods: GET refused",
    server: "b",
    path: "/api/v1/b-default",
    method: "GET",
    status: 405,
    rec: "b-default",
    ran: false,
  },
  {
    name: "a hook's own methods beat -http-methods",
    server: "b",
    path: "/api/v1/b-own",
    method: "GET",
    status: 200,
    rec: "b-own",
    ran: true,
  },
  {
    name: "a hook's own methods: POST refused",
    server: "b",
    path: "/api/v1/b-own",
    method: "POST",
    status: 405,
    rec: "b-own",
    ran: false,
  },
  {
    name: "-urlprefix: /hooks/ is outside it",
    server: "b",
    path: "/hooks/b-own",
    method: "GET",
    status: 404,
  },
  { name: "-urlprefix: / is still OK", server: "b", path: "/", method: "GET", status: 200 },
  { name: "-urlprefix api/v1: unknown id", server: "b", path: "/api/v1/zzz", method: "GET", status: 404 },
  {
    name: "empty -urlprefix serves /<id>",
    server: "c",
    path: "/c",
    method: "POST",
    status: 200,
    rec: "c",
    ran: true,
  },
  { name: "empty -urlprefix: GET / is still OK", server: "c", path: "/", method: "GET", status: 200 },
  {
    name: "empty -urlprefix: /hooks/c is an unknown id",
    server: "c",
    path: "/hooks/c",
    method: "POST",
    status: 404,
    rec: "c",
    ran: false,
  },
  {
    name: "-x-request-id with a limit takes the first bytes of X-Request-Id",
    server: "c",
    path: "/c",
    method: "POST",
    headers: [["X-Request-Id", "abcdefgh"]],
    status: 200,
    rec: "c",
    ran: true,
    log: "[abcd] c got matched",
  },
  {
    name: "without -x-request-id the header is not the request id",
    path: "/hooks/empty-out",
    method: "POST",
    headers: [["X-Request-Id", "zz-not-used"]],
    status: 200,
  },

  // Parameter sources and bodies.
  {
    name: "JSON: nested objects, array indexes, literal dotted keys, numbers as sent, null and bools",
    path: "/hooks/sources?q=query1&q=query2&Q=upper",
    method: "POST",
    headers: [JSON_CT, ["x-lower", "low"], ["X-Multi", "one"], ["X-Multi", "two"]],
    body: '{"a":"A <&>","n":{"x":"nx"},"arr":[{"k":"k0"},"a1"],"a.b":"lit","num":1.50,"big":12345678901234567890,"exp":1e3,"nul":null,"bool":false,"obj":{"z":1,"a":[1,"x"],"h":"<é>"}}',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON array body becomes payload.root",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: '[{"e":"first"},2]',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON scalar body gives no payload",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: "5",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "invalid JSON gives no payload but the raw body stays",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/vnd.api+json"]],
    body: '{"a": bad}',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON: a repeated key keeps the last value",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"first","a":"last","__proto__":{"x":1}}',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON: data after the first value is ignored",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"one"} {"a":"two"} garbage',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON: an empty body gives no payload",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: "",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "JSON: escapes and a lone surrogate",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"\\u00e9\\t\\ud800 \\/"}',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "form-urlencoded: '+' and escapes, an invalid escape",
    path: "/hooks/sources?q=a+b%21&Q=%zz&x;y=1",
    method: "POST",
    headers: [FORM_CT],
    body: "a=x+y%20z&arr=%zz&n.x=1",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "form-urlencoded: semicolons and empty keys",
    path: "/hooks/sources?q=1;Q=2&=v&q",
    method: "POST",
    headers: [FORM_CT],
    body: "a=1;n.x=2&&=3&a.b",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "XML: declaration, namespaces, CDATA, empty and self-closing elements, nested repeats",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/xml"]],
    body: '<?xml version="1.0"?><r xmlns:h="urn:x"><a x="1" y="2"><![CDATA[c<d]]></a><b/><b>  sp  </b><h:n><x>1</x><x>2</x></h:n></r>',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "XML: mixed text and elements, numbers stay strings",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/xml"]],
    body: "<r>text<a>1.50</a>tail<n><x>true</x></n></r>",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "XML: invalid XML gives no payload",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/xml"]],
    body: "<r><a></r>",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "XML: two root elements",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/xml"]],
    body: "<r><a>1</a></r><s>2</s>",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "a chunked request body",
    path: "/hooks/sources",
    method: "POST",
    headers: [JSON_CT, ["Transfer-Encoding", "chunked"]],
    body: '5\r\n{"a":\r\n6\r\n"chnk"\r\n1\r\n}\r\n0\r\n\r\n',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "header names with underscores and odd case",
    path: "/hooks/sources",
    method: "POST",
    headers: [
      ["x_lower", "under"],
      ["X-LOWER", "upper"],
      ["content-TYPE", "application/json"],
    ],
    body: '{"a":"hdr"}',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "form-urlencoded: first value per key",
    path: "/hooks/sources",
    method: "POST",
    headers: [FORM_CT],
    body: "a=1&a=2&n.x=dotted&arr=z",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "XML: root element, attributes with '-', text as #text, repeated elements as arrays",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "application/xml"]],
    body: '<r><a x="1">t</a><b>b0</b><b>b1</b></r>',
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "text/xml content type",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "text/xml; charset=utf-8"]],
    body: "<r><a>plain</a></r>",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "multipart: form values and an application/json part",
    path: "/hooks/sources",
    method: "POST",
    headers: [MP_CT],
    body: multipart([
      { name: "a", value: "mp-a" },
      { name: "n", value: '{"x":"from-json-part"}', filename: "n.json", type: "application/json" },
      { name: "arr", value: "ignored file", filename: "f.txt", type: "text/plain" },
    ]),
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "multipart without a boundary is a 500",
    path: "/hooks/sources",
    method: "POST",
    headers: [["Content-Type", "multipart/form-data; x=y"]],
    body: "garbage",
    status: 500,
    rec: "sources",
    ran: false,
  },
  {
    name: "an unsupported content type: no payload, raw body kept",
    path: "/hooks/sources?q=",
    method: "POST",
    headers: [["Content-Type", "text/plain"]],
    body: "just text",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "no body, no content type",
    path: "/hooks/sources",
    method: "GET",
    status: 200,
    rec: "sources",
    ran: true,
  },
  {
    name: "pass-environment-to-command: HOOK_<name> keeps case and dots; envname; missing values skipped",
    path: "/hooks/env?x=1",
    method: "POST",
    headers: [JSON_CT, ["x-token", "tok"]],
    body: '{"head_commit":{"timestamp":"2020-01-01T00:00:00Z"},"Name":"n"}',
    status: 200,
    rec: "env",
    ran: true,
  },
  {
    name: "pass-file-to-command: files with HOOK_<NAME>, base64decode, removed afterwards",
    path: "/hooks/files",
    method: "POST",
    headers: [JSON_CT],
    body: '{"data":"file data\\n","b64":"aGVsbG8gd29ybGQ=","bad64":"!!notb64","other":1}',
    status: 200,
    rec: "files",
    ran: true,
  },
  {
    name: "pass-file-to-command: base64 decoded up to a corrupt quantum",
    path: "/hooks/files",
    method: "POST",
    headers: [JSON_CT],
    body: '{"data":"","b64":"aGVs\\nbG8=","bad64":"YWJjZGVm*Z2hp"}',
    status: 200,
    rec: "files",
    ran: true,
  },
  {
    name: "pass-file-to-command in command-working-directory",
    path: "/hooks/files-wd",
    method: "POST",
    headers: [JSON_CT],
    body: '{"data":"in wd"}',
    status: 200,
    rec: "files-wd",
    ran: true,
  },
  {
    name: "parse-parameters-as-json on form payload, header and query",
    path: `/hooks/pjson?qj=${encodeURIComponent('{"b":["q0"]}')}`,
    method: "POST",
    headers: [FORM_CT, ["X-Json", '{"a":"ha"}']],
    body: `payload=${encodeURIComponent('{"canon_url":"https://x","n":1.0}')}&nj=${encodeURIComponent("[1,2]")}`,
    status: 200,
    rec: "pjson",
    ran: true,
  },
  {
    name: "parse-parameters-as-json: not an object, and a custom method with a JSON body",
    path: `/hooks/pjson?qj=${encodeURIComponent("[1]")}`,
    method: "patch",
    headers: [JSON_CT, ["X-Json", "{bad"]],
    body: '{"payload":"{\\"canon_url\\":1e2}","nj":"[1,2]"}',
    status: 200,
    rec: "pjson",
    ran: true,
  },
  {
    name: "parse-parameters-as-json on a multipart file part",
    path: "/hooks/pjson",
    method: "POST",
    headers: [MP_CT],
    body: multipart([
      { name: "payload", value: '{"canon_url":"mp"}', filename: "p.txt", type: "text/plain" },
    ]),
    status: 200,
    rec: "pjson",
    ran: true,
  },
  {
    name: "incoming-payload-content-type overrides the request's",
    path: "/hooks/ctover",
    method: "POST",
    headers: [["Content-Type", "text/plain"]],
    body: '{"a":"over"}',
    status: 200,
    rec: "ctover",
    ran: true,
  },

  // The command: lookup, working directory, output, failures.
  {
    name: "relative command in command-working-directory",
    path: "/hooks/wd",
    method: "POST",
    status: 200,
    rec: "wd",
    ran: true,
  },
  {
    name: "a PATH name with a working directory is looked up there: 500",
    path: "/hooks/wd-echo",
    method: "POST",
    status: 500,
  },
  {
    name: "a PATH name without a working directory runs",
    path: "/hooks/echo",
    method: "POST",
    headers: [JSON_CT],
    body: '{"x":"y"}',
    status: 200,
  },
  { name: "execute-command is not split on spaces", path: "/hooks/space", method: "POST", status: 500 },
  { name: "a missing command is a 500", path: "/hooks/missing", method: "POST", status: 500 },
  {
    name: "a missing command with output-on-error: 500, empty body",
    path: "/hooks/missing-onerr",
    method: "POST",
    status: 500,
  },
  {
    name: "a hook without execute-command (sync) is a 500",
    path: "/hooks/noexec",
    method: "POST",
    status: 500,
  },
  {
    name: "a hook without execute-command (async) answers its message",
    path: "/hooks/noexec-async",
    method: "POST",
    status: 200,
  },
  {
    name: "a failing command: 500 with upstream's text",
    path: "/hooks/fail",
    method: "POST",
    status: 500,
    rec: "fail",
    ran: true,
  },
  {
    name: "a failing command with output-on-error: 500 with its output",
    path: "/hooks/fail-onerr",
    method: "POST",
    status: 500,
    rec: "fail-onerr",
    ran: true,
  },
  {
    name: "a failing async command: 200 with the message",
    path: "/hooks/fail-async",
    method: "POST",
    status: 200,
    rec: "fail-async",
    ran: true,
    async: true,
  },
  {
    name: "stderr is part of the output",
    path: "/hooks/stderr",
    method: "POST",
    status: 200,
    rec: "stderr",
    ran: true,
  },
  {
    name: "async: success code, response-message, response-headers",
    path: "/hooks/async",
    method: "POST",
    status: 202,
    rec: "async",
    ran: true,
    async: true,
  },
  {
    name: "async without response-message: empty 200",
    path: "/hooks/async-empty",
    method: "GET",
    status: 200,
    rec: "async-empty",
    ran: true,
    async: true,
  },
  { name: "response-headers can set Content-Type", path: "/hooks/ctype", method: "POST", status: 200 },
  { name: "JSON output sniffs as text/plain", path: "/hooks/json-out", method: "POST", status: 200 },
  { name: "HTML output sniffs as text/html", path: "/hooks/html", method: "POST", status: 200 },
  {
    name: "sniffing: XML output",
    path: `/hooks/sniff?f=${encodeURIComponent('<?xml version="1.0"?><a/>')}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a PNG header",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x89PNG\\r\\n\\x1a\\n rest")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a GIF header",
    path: `/hooks/sniff?f=${encodeURIComponent("GIF89a....")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a PDF header",
    path: `/hooks/sniff?f=${encodeURIComponent("%%PDF-1.4 x")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: binary bytes",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x00\\x01\\x02abc")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a UTF-8 BOM",
    path: `/hooks/sniff?f=${encodeURIComponent("\\xef\\xbb\\xbfplain")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a UTF-16 BOM",
    path: `/hooks/sniff?f=${encodeURIComponent("\\xfe\\xffab")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: leading whitespace then <script",
    path: `/hooks/sniff?f=${encodeURIComponent(" \n\t<script>x</script>")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an HTML comment",
    path: `/hooks/sniff?f=${encodeURIComponent("<!-- c -->")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: <p> tag",
    path: `/hooks/sniff?f=${encodeURIComponent("<p>para")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: <br without a terminator",
    path: `/hooks/sniff?f=${encodeURIComponent("<br")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: <h1 followed by a letter",
    path: `/hooks/sniff?f=${encodeURIComponent("<h1x>")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a JSON array",
    path: `/hooks/sniff?f=${encodeURIComponent("[1,2]")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: gzip magic",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x1f\\x8b\\x08\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: zip magic",
    path: `/hooks/sniff?f=${encodeURIComponent("PK\\x03\\x04")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an mp3 ID3 tag",
    path: `/hooks/sniff?f=${encodeURIComponent("ID3\x03")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: WebAssembly magic",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x00asm\\x01\\x00\\x00\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a WAV RIFF header",
    path: `/hooks/sniff?f=${encodeURIComponent("RIFF\\x00\\x00\\x00\\x00WAVEfmt ")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a control character in text",
    path: `/hooks/sniff?f=${encodeURIComponent("text\\x07bell")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: PostScript",
    path: `/hooks/sniff?f=${encodeURIComponent("%%!PS-Adobe-3.0")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an ogg header",
    path: `/hooks/sniff?f=${encodeURIComponent("OggS\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a font (wOFF)",
    path: `/hooks/sniff?f=${encodeURIComponent("wOFF....")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a TTF header",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x00\\x01\\x00\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a .rar header",
    path: `/hooks/sniff?f=${encodeURIComponent("Rar!\\x1a\\x07\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an MP4 ftyp box",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x00\\x00\\x00\\x18ftypmp42\\x00\\x00\\x00\\x00mp42isom")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a webm header",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x1a\\x45\\xdf\\xa3")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a bmp header",
    path: `/hooks/sniff?f=${encodeURIComponent("BM....")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an icon header",
    path: `/hooks/sniff?f=${encodeURIComponent("\\x00\\x00\\x01\\x00")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a JPEG header",
    path: `/hooks/sniff?f=${encodeURIComponent("\\xff\\xd8\\xff\\xe0")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a webp header",
    path: `/hooks/sniff?f=${encodeURIComponent("RIFF\\x00\\x00\\x00\\x00WEBPVP")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an AVI header",
    path: `/hooks/sniff?f=${encodeURIComponent("RIFF\\x00\\x00\\x00\\x00AVI LIST")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an AIFF header",
    path: `/hooks/sniff?f=${encodeURIComponent("FORM\\x00\\x00\\x00\\x00AIFF")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: a MIDI header",
    path: `/hooks/sniff?f=${encodeURIComponent("MThd\\x00\\x00\\x00\\x06")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: an 7z header",
    path: `/hooks/sniff?f=${encodeURIComponent("7z\\xbc\\xaf\\x27\\x1c")}`,
    method: "POST",
    status: 200,
  },
  {
    name: "sniffing: response-message with leading spaces and upper-case HTML",
    path: "/hooks/sniff-msg",
    method: "POST",
    status: 200,
  },
  { name: "sniffing: output on error", path: "/hooks/sniff-onerr", method: "POST", status: 500 },
  {
    name: "an encoded slash in the id",
    path: "/hooks/a%2Fb",
    method: "POST",
    status: 200,
    rec: "slash",
    ran: true,
  },
  {
    name: "an argument with a NUL byte cannot be passed: 500",
    path: `/hooks/sniff?f=${encodeURIComponent("a\x00b")}`,
    method: "POST",
    status: 500,
  },
  { name: "a bad escape at the end of the path", path: "/hooks/empty-out%", method: "POST", status: 400 },
  { name: "a bad escape in the query is fine", path: "/hooks/empty-out?q=%zz", method: "POST", status: 200 },
  { name: "an escape that is not UTF-8", path: "/hooks/%e9", method: "POST", status: 404 },
  {
    name: "a missing working directory (with a file to pass) is a 500",
    path: "/hooks/no-wd",
    method: "POST",
    status: 500,
  },
  {
    name: "a script without #! is not run (exec format error)",
    path: "/hooks/no-shebang",
    method: "POST",
    status: 500,
    log: "error occurred: fork/exec ",
  },
  {
    name: "the command starts with no signal ignored or blocked",
    path: "/hooks/sig-ign",
    method: "POST",
    status: 200,
  },
  {
    name: "a working directory that is a file",
    path: "/hooks/wd-is-file",
    method: "POST",
    status: 500,
    log: "error occurred: fork/exec /bin/echo: not a directory",
  },
  {
    name: "a missing working directory: Go names the directory",
    path: "/hooks/no-wd",
    method: "POST",
    status: 500,
    log: "error occurred: chdir /nonexistent/wd: no such file or directory",
  },
  {
    name: "a missing working directory, async: the message",
    path: "/hooks/no-wd-async",
    method: "POST",
    status: 200,
  },
  { name: "the server still answers after that", path: "/hooks/empty-out", method: "POST", status: 200 },
  { name: "an invalid percent escape in the path", path: "/hooks/%zz", method: "POST", status: 400 },
  {
    name: "a multipart part typed application/json; charset=utf-8",
    path: "/hooks/sources",
    method: "POST",
    headers: [MP_CT],
    body: multipart([
      { name: "n", value: '{"x":"cs"}', filename: "n.json", type: "application/json; charset=utf-8" },
      { name: "a", value: "v1" },
      { name: "a", value: "v2" },
    ]),
    status: 200,
    rec: "sources",
    ran: true,
  },
  { name: "empty output: no Content-Type", path: "/hooks/empty-out", method: "POST", status: 200 },
  { name: "output over 2 KB", path: "/hooks/long", method: "POST", status: 200 },
  {
    name: "success-http-response-code and response-headers",
    path: "/hooks/codes?token=t",
    method: "POST",
    status: 201,
    rec: "codes",
    ran: true,
  },
  {
    name: "trigger-rule-mismatch-http-response-code",
    path: "/hooks/codes?token=x",
    method: "POST",
    status: 403,
    rec: "codes",
    ran: false,
  },
  {
    name: "an unknown success code falls back to 200",
    path: "/hooks/badcodes?token=t",
    method: "POST",
    status: 200,
    rec: "badcodes",
    ran: true,
  },
  {
    name: "an unknown mismatch code falls back to 200",
    path: "/hooks/badcodes",
    method: "POST",
    status: 200,
    rec: "badcodes",
    ran: false,
  },

  // Rules.
  {
    name: "value: match",
    path: "/hooks/value",
    method: "POST",
    headers: [JSON_CT],
    body: '{"token":"s3"}',
    status: 200,
    rec: "value",
    ran: true,
  },
  {
    name: "value: mismatch",
    path: "/hooks/value",
    method: "POST",
    headers: [JSON_CT],
    body: '{"token":"s4"}',
    status: 200,
    rec: "value",
    ran: false,
  },
  {
    name: "value: missing parameter",
    path: "/hooks/value",
    method: "POST",
    headers: [JSON_CT],
    body: "{}",
    status: 200,
    rec: "value",
    ran: false,
  },
  {
    name: "value: a number in the hooks file compares as text",
    path: "/hooks/value-num",
    method: "POST",
    headers: [JSON_CT],
    body: '{"n":42}',
    status: 200,
    rec: "value-num",
    ran: true,
  },
  {
    name: "value: 42.0 is not 42",
    path: "/hooks/value-num",
    method: "POST",
    headers: [JSON_CT],
    body: '{"n":42.0}',
    status: 200,
    rec: "value-num",
    ran: false,
  },
  {
    name: "-template getenv | js into a value",
    path: "/hooks/tpl",
    method: "POST",
    headers: [JSON_CT],
    body: JSON.stringify({ token: TPL_TOKEN }),
    status: 200,
    rec: "tpl",
    ran: true,
  },
  {
    name: "-template: the literal placeholder does not match",
    path: "/hooks/tpl",
    method: "POST",
    headers: [JSON_CT],
    body: '{"token":"@@TPL@@"}',
    status: 200,
    rec: "tpl",
    ran: false,
  },
  {
    name: "regex is unanchored",
    path: "/hooks/regex",
    method: "POST",
    headers: [JSON_CT],
    body: '{"ref":"refs/heads/main-x"}',
    status: 200,
    rec: "regex",
    ran: true,
  },
  {
    name: "regex: no match",
    path: "/hooks/regex",
    method: "POST",
    headers: [JSON_CT],
    body: '{"ref":"refs/tags/v1"}',
    status: 200,
    rec: "regex",
    ran: false,
  },
  {
    name: "regex: invalid pattern is an evaluation error",
    path: "/hooks/regex-bad",
    method: "POST",
    headers: [JSON_CT],
    body: '{"ref":"x"}',
    status: 500,
    rec: "regex-bad",
    ran: false,
  },
  {
    name: "request remote-addr is ip:port",
    path: "/hooks/remote",
    method: "POST",
    status: 200,
    rec: "remote",
    ran: true,
  },
  {
    name: "hmac-sha1 with sha1= prefix",
    path: "/hooks/hmac1",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature", `sha1=${sign("sha1", B256)}`]],
    body: B256,
    status: 200,
    rec: "hmac1",
    ran: true,
  },
  {
    name: "hmac-sha1 bare hex",
    path: "/hooks/hmac1",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature", sign("sha1", B256)]],
    body: B256,
    status: 200,
    rec: "hmac1",
    ran: true,
  },
  {
    name: "hmac-sha1 wrong",
    path: "/hooks/hmac1",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature", `sha1=${"0".repeat(40)}`]],
    body: B256,
    status: 500,
    rec: "hmac1",
    ran: false,
  },
  {
    name: "hmac-sha256 sha256=<hex>",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha256=${S256}`]],
    body: B256,
    status: 200,
    rec: "hmac256",
    ran: true,
  },
  {
    name: "hmac-sha256 bare hex",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["x-hub-signature-256", S256]],
    body: B256,
    status: 200,
    rec: "hmac256",
    ran: true,
  },
  {
    name: "hmac-sha256 several, the second right",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha256=bad,sha256=${S256}`]],
    body: B256,
    status: 200,
    rec: "hmac256",
    ran: true,
  },
  {
    name: "hmac-sha256 several with ', ' fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha256=bad, sha256=${S256}`]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 several without prefixes fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `bad,${S256}`]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 upper-case hex fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha256=${S256.toUpperCase()}`]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 SHA256= prefix fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `SHA256=${S256}`]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 sha1= prefix fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha1=${S256}`]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 over another body fails",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", `sha256=${S256}`]],
    body: `${B256} `,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 empty header value",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT, ["X-Hub-Signature-256", ""]],
    body: B256,
    status: 500,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha256 missing header: not satisfied",
    path: "/hooks/hmac256",
    method: "POST",
    headers: [JSON_CT],
    body: B256,
    status: 200,
    rec: "hmac256",
    ran: false,
  },
  {
    name: "hmac-sha512",
    path: "/hooks/hmac512",
    method: "POST",
    headers: [["X-Sig", `sha512=${sign("sha512", "raw body")}`]],
    body: "raw body",
    status: 200,
    rec: "hmac512",
    ran: true,
  },
  {
    name: "hmac-sha512 wrong",
    path: "/hooks/hmac512",
    method: "POST",
    headers: [["X-Sig", `sha512=${sign("sha256", "raw body")}`]],
    body: "raw body",
    status: 500,
    rec: "hmac512",
    ran: false,
  },
  {
    name: "deprecated payload-hash-sha256",
    path: "/hooks/hash256",
    method: "POST",
    headers: [["X-Sig", sign("sha256", "b")]],
    body: "b",
    status: 200,
    rec: "hash256",
    ran: true,
  },
  {
    name: "an empty secret is an evaluation error",
    path: "/hooks/hmac-empty",
    method: "POST",
    headers: [["X-Sig", sign("sha256", "b", "")]],
    body: "b",
    status: 500,
    rec: "hmac-empty",
    ran: false,
  },
  {
    name: "multipart bodies sign as empty",
    path: "/hooks/hmac512",
    method: "POST",
    headers: [MP_CT, ["X-Sig", sign("sha512", "")]],
    body: multipart([{ name: "a", value: "1" }]),
    status: 200,
    rec: "hmac512",
    ran: true,
  },
  {
    name: "soft failures: a bad signature inside or is false",
    path: "/hooks/soft?token=t",
    method: "POST",
    headers: [["X-Sig", "bad"]],
    body: "b",
    status: 200,
    rec: "soft",
    ran: true,
  },
  {
    name: "soft failures: bad signature, other branch false",
    path: "/hooks/soft?token=x",
    method: "POST",
    headers: [["X-Sig", "bad"]],
    body: "b",
    status: 200,
    rec: "soft",
    ran: false,
  },
  {
    name: "without soft failures a bad signature inside or is a 500",
    path: "/hooks/nosoft?token=t",
    method: "POST",
    headers: [["X-Sig", "bad"]],
    body: "b",
    status: 500,
    rec: "nosoft",
    ran: false,
  },
  {
    name: "without soft failures a missing signature inside or is skipped",
    path: "/hooks/nosoft?token=t",
    method: "POST",
    body: "b",
    status: 200,
    rec: "nosoft",
    ran: true,
  },
  {
    name: "soft failures do not apply to a top-level match",
    path: "/hooks/soft-top",
    method: "POST",
    headers: [["X-Sig", "bad"]],
    body: "b",
    status: 500,
    rec: "soft-top",
    ran: false,
  },
  {
    name: "and: both true",
    path: "/hooks/and",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"1","b":"xyz"}',
    status: 200,
    rec: "and",
    ran: true,
  },
  {
    name: "and: second false",
    path: "/hooks/and",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"1","b":"yz"}',
    status: 200,
    rec: "and",
    ran: false,
  },
  {
    name: "and: a missing parameter",
    path: "/hooks/and",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"1"}',
    status: 200,
    rec: "and",
    ran: false,
  },
  {
    name: "or: second true",
    path: "/hooks/or",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"0","b":"2"}',
    status: 200,
    rec: "or",
    ran: true,
  },
  {
    name: "or: first missing, second true",
    path: "/hooks/or",
    method: "POST",
    headers: [JSON_CT],
    body: '{"b":"2"}',
    status: 200,
    rec: "or",
    ran: true,
  },
  {
    name: "or: none true",
    path: "/hooks/or",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"0","b":"0"}',
    status: 200,
    rec: "or",
    ran: false,
  },
  {
    name: "not: true when the child is false",
    path: "/hooks/not",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"0"}',
    status: 200,
    rec: "not",
    ran: true,
  },
  {
    name: "not: false when the child is true",
    path: "/hooks/not",
    method: "POST",
    headers: [JSON_CT],
    body: '{"a":"1"}',
    status: 200,
    rec: "not",
    ran: false,
  },
  {
    name: "not over a missing parameter fires (upstream quirk)",
    path: "/hooks/not",
    method: "POST",
    headers: [JSON_CT],
    body: "{}",
    status: 200,
    rec: "not",
    ran: true,
  },
  {
    name: "an empty rule object is never satisfied",
    path: "/hooks/empty-rule",
    method: "POST",
    status: 200,
    rec: "empty-rule",
    ran: false,
  },
  {
    name: "an unknown match type without a parameter is an evaluation error (the peer reads it first)",
    path: "/hooks/unknown-type",
    method: "POST",
    status: 500,
    rec: "unknown-type",
    ran: false,
  },
  {
    name: "an unknown match type with a parameter is not satisfied",
    path: "/hooks/unknown-type-param",
    method: "POST",
    status: 200,
    rec: "unknown-type-param",
    ran: false,
  },
  { name: "ip-whitelist CIDR", path: "/hooks/ipwl", method: "POST", status: 200, rec: "ipwl", ran: true },
  {
    name: "ip-whitelist bare IPs separated by spaces",
    path: "/hooks/ipwl-bare",
    method: "POST",
    status: 200,
    rec: "ipwl-bare",
    ran: true,
  },
  {
    name: "ip-whitelist outside the range",
    path: "/hooks/ipwl-no",
    method: "POST",
    status: 200,
    rec: "ipwl-no",
    ran: false,
  },
  {
    name: "ip-whitelist invalid range: 500",
    path: "/hooks/ipwl-bad",
    method: "POST",
    status: 500,
    rec: "ipwl-bad",
    ran: false,
  },
  {
    name: "scalr-signature valid and fresh",
    path: "/hooks/scalr",
    method: "POST",
    headers: scalr("sb", scalrDate(0)),
    body: "sb",
    status: 200,
    rec: "scalr",
    ran: true,
  },
  {
    name: "scalr-signature outdated: 500",
    path: "/hooks/scalr",
    method: "POST",
    headers: scalr("sb", scalrDate(-3600)),
    body: "sb",
    status: 500,
    rec: "scalr",
    ran: false,
  },
  {
    name: "scalr-signature wrong: 500",
    path: "/hooks/scalr",
    method: "POST",
    headers: scalr("sb", scalrDate(0), "other"),
    body: "sb",
    status: 500,
    rec: "scalr",
    ran: false,
  },
  {
    name: "scalr-signature headers missing: not satisfied",
    path: "/hooks/scalr",
    method: "POST",
    body: "sb",
    status: 200,
    rec: "scalr",
    ran: false,
  },

  // Hooks files: YAML, YAML 1.1 scalars, case-insensitive fields, JSON quirks, templates.
  {
    name: "YAML hook; value: yes compares as 'true'",
    path: "/hooks/yaml-hook",
    method: "POST",
    headers: [JSON_CT],
    body: '{"flag":"true","a":"ya"}',
    status: 200,
    rec: "yaml",
    ran: true,
  },
  {
    name: "YAML value: yes does not match 'yes'",
    path: "/hooks/yaml-hook",
    method: "POST",
    headers: [JSON_CT],
    body: '{"flag":"yes"}',
    status: 200,
    rec: "yaml",
    ran: false,
  },
  { name: "YAML id: yes is the id 'true'", path: "/hooks/true", method: "GET", status: 200 },
  { name: "YAML id: yes is not served as 'yes'", path: "/hooks/yes", method: "GET", status: 404 },
  {
    name: "field names match case-insensitively; numbers become strings",
    path: "/hooks/Case-Fields",
    method: "POST",
    status: 200,
  },
  { name: "JSON with trailing commas and tabs loads", path: "/hooks/quirk", method: "POST", status: 200 },
  {
    name: "YAML template getenv, unset variable empty",
    path: "/hooks/yaml-tpl",
    method: "POST",
    status: 200,
  },
];

// The headers users see; framing headers (Date, Content-Length, chunking, keep-alive) are the transport's business.
const FRAMING = new Set(["date", "content-length", "transfer-encoding", "connection", "keep-alive"]);
function visible(r: RawResponse): string[] {
  return r.headers
    .filter(([k]) => !FRAMING.has(k.toLowerCase()))
    .map(([k, v]) => `${k.toLowerCase()}: ${v}`)
    .sort();
}

async function records(side: Side, rec: string): Promise<string[]> {
  const text = await readFile(join(root, side, "rec", `${rec}.jsonl`), "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the scenario against one side; returns the answer and the runs it added (paths checked, then dropped). */
async function runOn(side: Side, s: Scenario): Promise<{ res: RawResponse; runs: unknown[] }> {
  const server = running.get(`${side}:${s.server ?? "main"}`) as Running;
  const before = s.rec === undefined ? [] : await records(side, s.rec);
  const res = await rawRequest(server.port, {
    method: s.method ?? "POST",
    path: s.path,
    ...(s.headers === undefined ? {} : { headers: s.headers }),
    ...(s.body === undefined ? {} : { body: s.body }),
  });
  if (s.rec === undefined) return { res, runs: [] };
  let lines = await records(side, s.rec);
  for (let i = 0; s.async && s.ran && lines.length === before.length && i < 100; i++) {
    await sleep(50);
    lines = await records(side, s.rec);
  }
  if (s.async) await sleep(300); // let the async command end and its files go
  const runs = lines.slice(before.length).map((l) => {
    const { paths, ...entry } = JSON.parse(l) as { paths: string[] };
    for (const p of paths)
      assert.equal(existsSync(p), false, `${side}: ${p} must be removed after the command`);
    return entry;
  });
  return { res, runs };
}

for (const s of SCENARIOS) {
  test(`parity: ${s.name}`, async () => {
    const peer = await runOn("peer", s);
    const ours = await runOn("ours", s);
    const label = `${s.method ?? "POST"} ${s.path}`;
    assert.equal(peer.res.status, s.status, `peer status for ${label} (update the table to the peer's)`);
    assert.equal(ours.res.status, peer.res.status, `status for ${label}`);
    assert.equal(ours.res.body.toString("latin1"), peer.res.body.toString("latin1"), `body for ${label}`);
    assert.deepEqual(visible(ours.res), visible(peer.res), `headers for ${label}`);
    if (s.rec !== undefined) {
      assert.equal(peer.runs.length > 0, s.ran ?? false, `peer's command ${s.ran ? "must" : "must not"} run`);
      assert.deepEqual(ours.runs, peer.runs, `the command's effect for ${label}`);
    }
    if (s.log !== undefined) {
      for (const side of ["peer", "ours"] as const) {
        const log = (running.get(`${side}:${s.server ?? "main"}`) as Running).log;
        assert.ok(log.includes(s.log), `${side} logged ${JSON.stringify(s.log)}`);
      }
    }
  });
}

test("parity: no command ran late, on either side, for any scenario", async () => {
  await sleep(500);
  for (const [name] of recorders) {
    const peer = (await records("peer", name)).map((l) => ({ ...JSON.parse(l), paths: undefined }));
    const ours = (await records("ours", name)).map((l) => ({ ...JSON.parse(l), paths: undefined }));
    assert.deepEqual(ours, peer, `runs recorded for ${name}`);
  }
  for (const side of ["peer", "ours"])
    assert.deepEqual(await readdir(join(root, side, "tmp")), [], `${side}: files left`);
  assert.deepEqual(await readdir(wd), ["rec-wd"], "files left in the working directory");
  await assert.rejects(access(join(root, "no-shebang-ran")), "a script without #! ran through a shell");
});

test("parity: the suite covers at least 80 scenarios", () => {
  assert.ok(SCENARIOS.length >= 80, String(SCENARIOS.length));
});

/** Runs a short-lived invocation of one side; dates and the program name are normalised. */
function invoke(side: Side, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child =
      side === "peer"
        ? spawn(PEER, args, { cwd: root })
        : spawn(process.execPath, [OURS, ...args], { cwd: root });
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => (out += d));
    child.stderr?.on("data", (d: Buffer) => (err += d));
    // A program that cannot start, or an invocation that does not end within 20 s, is an answer the test reports.
    const deadline = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", (error) => {
      clearTimeout(deadline);
      resolve({ code: null, out, err: `cannot start: ${error.message}` });
    });
    const norm = (s: string) =>
      s
        .replace(/^(\[webhook\] )?\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /gm, "$1<date> ")
        .replace(/^Usage of \/usr\/bin\/webhook:/m, "Usage of webhook:");
    child.on("close", (code) => {
      clearTimeout(deadline);
      resolve({ code, out: norm(out), err: norm(err) });
    });
  });
}

const CLI_CASES: readonly (readonly string[])[] = [
  ["-version"],
  ["--version"],
  ["-help"],
  ["-h"],
  ["-bogus"],
  ["-header", "no-equals"],
  ["-port", "abc"],
  ["-verbose=maybe"],
  ["-max-multipart-mem", "1e3"],
  ["-http-methods"],
  ["-list-cipher-suites"],
  ["-list-cipher-suites", "-tls-min-version", "1.3"],
  ["-list-cipher-suites", "-tls-min-version", "9"],
  ["-hooks", "/nonexistent/hooks.json"],
  ["-setuid", "1"],
];

for (const args of CLI_CASES) {
  test(`parity: command line ${args.join(" ")}`, async () => {
    const [peer, ours] = await Promise.all([invoke("peer", [...args]), invoke("ours", [...args])]);
    assert.deepEqual(ours, peer);
  });
}

/** Writes `bytes` as they are and reads the answer until the server closes (or 5 s pass); Date lines removed. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    const done = () => resolve(text.replace(/^Date: [^\r]*\r\n/m, ""));
    socket.setTimeout(5000, () => {
      socket.destroy();
      done();
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("end", done);
    socket.on("error", (e) => (text === "" ? reject(e) : done()));
  });
}

const MALFORMED: readonly [string, string][] = [
  ["a header line without a colon", "GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"],
  ["HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n"],
  [
    "a transfer coding other than chunked",
    "POST /hooks/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
  ],
  ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
  ["an unknown HTTP version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n"],
  ["a Content-Length that is not a number", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
  [
    "headers past Go's 1 MiB + 4 KiB",
    `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_060_000)}\r\nContent-Length: 0\r\n\r\n`,
  ],
];

for (const [name, bytes] of MALFORMED) {
  test(`parity: a request Go cannot read: ${name}`, async () => {
    const peer = rawExchange((running.get("peer:main") as Running).port, bytes);
    const ours = rawExchange((running.get("ours:main") as Running).port, bytes);
    assert.match(await peer, /^HTTP\/1\.1 [45]\d\d /);
    assert.equal(await ours, await peer);
  });
}

test("parity: 1 MB of headers is still read (node's default limit is 16 KiB)", async () => {
  const bytes = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_040_000)}\r\nConnection: close\r\n\r\n`;
  for (const side of ["peer", "ours"] as const) {
    const answer = await rawExchange((running.get(`${side}:main`) as Running).port, bytes);
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/, side);
    assert.ok(answer.endsWith("\r\n\r\nOK"), side);
  }
});

test("parity: a kept-alive connection idle for 6 s still serves, and no Keep-Alive header is sent", async () => {
  // Go's http.Server as upstream builds it has no idle timeout; node's default closes idle connections after 5 s.
  const session = (port: number) =>
    new Promise<string[]>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      const answers: string[] = [];
      let text = "";
      const ask = () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      socket.on("connect", ask);
      socket.on("data", (c: Buffer) => {
        text += c.toString("latin1");
        if (!text.endsWith("\r\n\r\nOK")) return;
        answers.push(text);
        text = "";
        if (answers.length === 1) setTimeout(ask, 6000);
        else {
          socket.end();
          resolve(answers);
        }
      });
      socket.on("error", reject);
      socket.on("end", () => reject(new Error(`closed after ${answers.length} answer(s)`)));
    });
  const sessions = (["peer", "ours"] as const).map((side) =>
    session((running.get(`${side}:main`) as Running).port),
  );
  for (const answers of await Promise.all(sessions)) {
    assert.equal(answers.length, 2);
    for (const a of answers) assert.doesNotMatch(a, /^keep-alive:/im);
  }
});

test("parity: -debug and -verbose log lines, request by request", async () => {
  const requests: Scenario[] = [
    { name: "", path: "/", method: "GET", status: 200 },
    {
      name: "",
      path: "/hooks/ok?q=1&q=2",
      headers: [JSON_CT, ["X-A", "ha"]],
      body: '{"a":"A b"}',
      status: 200,
    },
    { name: "", path: "/hooks/rule", headers: [JSON_CT], body: '{"t":"y"}', status: 200 },
    { name: "", path: "/hooks/rule", headers: [JSON_CT], body: "bad json", status: 200 },
    { name: "", path: "/hooks/sig", headers: [["X-Sig", "sha256=00,sha256=11"]], body: "b", status: 500 },
    { name: "", path: "/hooks/meth", method: "GET", status: 405 },
    { name: "", path: "/hooks/fail", status: 500 },
    { name: "", path: "/hooks/missing", status: 500 },
    { name: "", path: "/hooks/code", status: 200 },
    { name: "", path: "/hooks/html", status: 200 },
    { name: "", path: "/hooks/nope", status: 404 },
    { name: "", path: "/elsewhere", method: "GET", status: 404 },
    { name: "", path: "/hooks/ok", headers: [FORM_CT], body: "a=1&a=2", status: 200 },
  ];
  const logs: Record<Side, string> = { peer: "", ours: "" };
  for (const side of ["peer", "ours"] as const) {
    const server = running.get(`${side}:d`) as Running;
    const start = server.log.length;
    for (const r of requests) {
      const res = await rawRequest(server.port, {
        method: r.method ?? "POST",
        path: r.path,
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body === undefined ? {} : { body: r.body }),
      });
      assert.equal(res.status, r.status, `${side} ${r.path}`);
    }
    await sleep(200);
    logs[side] = server.log
      .slice(start)
      .replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/g, "<date>")
      .replace(/\[[0-9a-f]{6}\]/g, "[<rid>]")
      .replace(/127\.0\.0\.1:\d+/g, "<addr>")
      .replace(/\| [\d.]+(ns|µs|ms|s) \|/g, "| <duration> |");
  }
  assert.deepEqual(logs.ours.split("\n"), logs.peer.split("\n"));
});

test("parity: -hotreload edits, a broken file, duplicate ids, SIGHUP and removal serve the same hooks", async () => {
  const hooksOf = (ids: string[]) =>
    JSON.stringify(ids.map((id) => ({ id, "execute-command": "/bin/true" })));
  // One same-size write in place: upstream's fsnotify reloads on every write event, and would otherwise also read
  // the file truncated but not yet written (a race of the peer's, not a behaviour to compare).
  const put = (path: string, text: string) =>
    writeFile(path, text.padEnd(400), { flag: existsSync(path) ? "r+" : "w" });
  const seen: Record<Side, number[]> = { peer: [], ours: [] };
  for (const side of ["peer", "ours"] as const) {
    const dir = join(root, side, "reload");
    await mkdir(dir, { recursive: true });
    await put(join(dir, "one.json"), hooksOf(["a"]));
    await put(join(dir, "two.json"), hooksOf(["b"]));
    const port = await freePort();
    const argv = [
      "-hooks",
      "one.json",
      "-hooks",
      "two.json",
      "-hotreload",
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
    ];
    const [command, args] =
      side === "peer" ? [PEER, [...argv, "-verbose"]] : [process.execPath, [OURS, ...argv, "-verbose"]];
    const { child } = await servers.start(command, args, { cwd: dir, ready: "serving hooks on" });
    const status = async (id: string) =>
      (await rawRequest(port, { method: "POST", path: `/hooks/${id}` })).status;
    // Waits (at most 5 s) for a reload to show, then records what is served.
    const settle = async (id: string, expected: number) => {
      for (let i = 0; i < 100 && (await status(id)) !== expected; i++) await sleep(50);
      seen[side].push(await status(id));
    };
    try {
      await settle("a", 200);
      await settle("c", 404);
      await put(join(dir, "one.json"), hooksOf(["a", "c"]));
      await settle("c", 200);
      await put(join(dir, "one.json"), "[ not json");
      await sleep(500);
      await settle("c", 200);
      await put(join(dir, "one.json"), hooksOf(["b"]));
      await sleep(500);
      await settle("a", 200);
      await settle("b", 200);
      await put(join(dir, "two.json"), hooksOf(["b", "d"]));
      child.kill("SIGHUP");
      await sleep(500);
      await settle("d", 200);
      await rm(join(dir, "two.json"));
      await settle("b", 404);
    } finally {
      await servers.stop(child);
    }
  }
  assert.deepEqual(seen.ours, seen.peer);
  assert.deepEqual(seen.peer, [200, 404, 200, 200, 200, 200, 200, 404]);
});

test("parity: a -pidfile naming a live process is fatal; a missing directory is created", async () => {
  for (const verbose of [[], ["-verbose"]]) {
    const results = [];
    for (const side of ["peer", "ours"] as const) {
      const pidfile = join(root, side, "live.pid");
      await writeFile(pidfile, "1");
      const args = ["-hooks", join(root, "c.json"), "-ip", "127.0.0.1", "-port", String(await freePort())];
      results.push(await invoke(side, [...args, "-pidfile", pidfile, ...verbose]));
      assert.equal(await readFile(pidfile, "utf8"), "1", `${side} left the pid file alone`);
    }
    const [peer, ours] = results.map((r) => ({
      ...r,
      err: r.err.replaceAll(/\/(peer|ours)\//g, "/<side>/"),
    }));
    assert.deepEqual(ours, peer);
    assert.equal(peer?.code, 1);
  }
  const dirs: Record<Side, string> = { peer: "", ours: "" };
  for (const side of ["peer", "ours"] as const) {
    const port = await freePort();
    const pidfile = join(root, side, "new", "dir", "w.pid");
    const argv = [
      "-hooks",
      join(root, "c.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-pidfile",
      pidfile,
    ];
    const child = side === "peer" ? spawn(PEER, argv) : spawn(process.execPath, [OURS, ...argv]);
    // Without -verbose there is no log line to wait for, only the pid file; a program that cannot start leaves none.
    child.on("error", () => undefined);
    try {
      for (let i = 0; i < 200 && !existsSync(pidfile); i++) await sleep(25);
      dirs[side] = String(child.pid === Number(await readFile(pidfile, "utf8")));
    } finally {
      child.kill("SIGTERM");
      if (child.pid !== undefined && child.exitCode === null) await new Promise((r) => child.on("close", r));
    }
    dirs[side] += ` ${existsSync(pidfile)}`;
  }
  assert.deepEqual(dirs, { peer: "true false", ours: "true false" });
});
