// Scenarios run both by scripts/record-master-fixtures.mjs (against a build of upstream master, whose answers become
// test/fixtures/master/answers.json) and by the tests that compare ours with those answers
// (test/master-fixtures.test.ts, test/master-fixtures.peers.test.ts). Issue 34 items 1 and 2: socket activation
// (TCP, dual-stack, Unix, two sockets), a plain -socket, and the `cat`/`credential` template functions. Everything
// host-specific (the temporary directory, ports, request ids, dates) is replaced by a placeholder, so the answers
// compare byte for byte.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";

/**
 * How a scenario's server is started: `command` is the server's argv prefix (`[node, ours]` or `[master]`);
 * `socketActivate` is the program that passes listening sockets as systemd does (Debian's systemd-socket-activate),
 * given only where the activation scenarios run, so the npm-test side names no program outside Node.
 */
export interface Launch {
  readonly command: readonly string[];
  readonly socketActivate?: string;
}

/** One scenario: files to write, how the server is started, the raw requests sent one per connection. */
export interface Scenario {
  readonly name: string;
  /** Listen addresses given to systemd-socket-activate (`-l`); none: the server listens itself. */
  readonly activate?: readonly string[];
  /** Files under the scenario's directory (`{dir}` in their text is that directory). */
  readonly files: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  /** The environment (systemd-socket-activate passes only its own few variables, plus these as `-E`). */
  readonly env: Readonly<Record<string, string>>;
  /** Where requests go: `tcp` to `{port}` on 127.0.0.1, or a Unix socket path under `{dir}`. */
  readonly target: { readonly tcp: true } | { readonly unix: string };
  readonly requests: readonly string[];
}

/** What a scenario gave: each answer (Date left out; `` for none), the selected log lines, the exit code. */
export interface Recorded {
  readonly answers: readonly string[];
  readonly log: readonly string[];
  readonly exit: number | null;
}

const JSON_HOOKS = JSON.stringify(
  [
    {
      id: "fds",
      "execute-command": "/bin/sh",
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [
        { source: "string", name: "-c" },
        // The descriptors a command gets (3 is ls's own) and any LISTEN_ variable left for it.
        { source: "string", name: "ls -1 /proc/self/fd | tr '\\n' ,; env | grep '^LISTEN_'; true" },
      ],
    },
    {
      id: "echo",
      "execute-command": "/bin/echo",
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [
        { source: "payload", name: "a" },
        { source: "header", name: "X-Value" },
      ],
    },
  ],
  null,
  2,
);

/** Hooks whose values come from `cat` and `credential` (upstream docs/Templates.md examples, and their edges). */
const TEMPLATE_HOOKS = `[
  {
    "id": "cat",
    "execute-command": "/bin/true",
    "response-message": "{{ cat "{dir}/secret.txt" | js }}|{{ cat "{dir}/multi.txt" | js }}|{{ cat "{dir}/missing" }}|{{ cat "{dir}" }}"
  },
  {
    "id": "credential",
    "execute-command": "/bin/echo",
    "include-command-output-in-response": true,
    "pass-arguments-to-command": [{ "source": "string", "name": "{{ credential "api_token" | js }}" }],
    "trigger-rule": {
      "match": { "type": "value", "value": "{{ credential "api_token" | js }}", "parameter": { "source": "header", "name": "X-Token" } }
    }
  },
  {
    "id": "credential-edges",
    "execute-command": "/bin/true",
    "response-message": "[{{ credential "absent" }}][{{ credential "../secret.txt" | js }}][{{ getenv "HOME_LIKE" }}]"
  }
]
`;

const FILES = {
  "hooks.json": JSON_HOOKS,
  "hooks.tmpl.json": TEMPLATE_HOOKS,
  "secret.txt": 's3cr"et\n',
  "multi.txt": "line one\nline two\n\n",
  "creds/api_token": 'tok"en<&>\n',
};

const SERVE_ARGS = ["-hooks", "{dir}/hooks.json", "-verbose"];
const WIRE_REQUESTS = [
  "GET /hooks/fds HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  'POST /hooks/echo HTTP/1.1\r\nHost: x\r\nX-Value: v\r\nContent-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"a":"b"}',
  "GET /hooks/absent HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
];
const TEMPLATE_REQUESTS = [
  "GET /hooks/cat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  'GET /hooks/credential HTTP/1.1\r\nHost: x\r\nX-Token: tok"en<&>\r\nConnection: close\r\n\r\n',
  "GET /hooks/credential HTTP/1.1\r\nHost: x\r\nX-Token: envtok\r\nConnection: close\r\n\r\n",
  "GET /hooks/credential-edges HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
];

export const SCENARIOS: readonly Scenario[] = [
  {
    // -ip, -port and -socket are ignored when systemd passes the socket (upstream docs/Systemd-Activation.md).
    name: "activation-tcp",
    activate: ["127.0.0.1:{port}"],
    files: FILES,
    args: [...SERVE_ARGS, "-ip", "192.0.2.1", "-port", "1", "-socket", "{dir}/ignored.sock"],
    env: {},
    target: { tcp: true },
    requests: WIRE_REQUESTS,
  },
  {
    // A bare port: systemd binds [::] dual-stack, and IPv4 clients arrive as ::ffff:127.0.0.1.
    name: "activation-dual-stack",
    activate: ["{port}"],
    files: FILES,
    args: SERVE_ARGS,
    env: {},
    target: { tcp: true },
    requests: WIRE_REQUESTS,
  },
  {
    name: "activation-unix",
    activate: ["{dir}/activated.sock"],
    files: FILES,
    args: [...SERVE_ARGS, "-port", "1"],
    env: {},
    target: { unix: "{dir}/activated.sock" },
    requests: WIRE_REQUESTS,
  },
  {
    // Upstream takes one socket only and says so.
    name: "activation-two-sockets",
    activate: ["127.0.0.1:{port}", "127.0.0.1:{port2}"],
    files: FILES,
    args: SERVE_ARGS,
    env: {},
    target: { tcp: true },
    requests: ["GET /hooks/fds HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
  },
  {
    name: "unix-socket",
    files: FILES,
    args: [...SERVE_ARGS, "-socket", "{dir}/plain.sock"],
    env: {},
    target: { unix: "{dir}/plain.sock" },
    // Not `fds`: a command of Go's own -socket server sees a descriptor of Go's runtime (251 here) that ours lacks.
    requests: WIRE_REQUESTS.slice(1),
  },
  {
    name: "templates-credentials-directory",
    files: FILES,
    args: ["-template", "-hooks", "{dir}/hooks.tmpl.json", "-verbose", "-ip", "127.0.0.1", "-port", "{port}"],
    env: { CREDENTIALS_DIRECTORY: "{dir}/creds", api_token: "envtok", absent: "env-absent", HOME_LIKE: "h" },
    target: { tcp: true },
    requests: TEMPLATE_REQUESTS,
  },
  {
    // No CREDENTIALS_DIRECTORY: credential falls back to the variable of that name.
    name: "templates-environment-fallback",
    files: FILES,
    args: ["-template", "-hooks", "{dir}/hooks.tmpl.json", "-verbose", "-ip", "127.0.0.1", "-port", "{port}"],
    env: { api_token: "envtok", HOME_LIKE: "h" },
    target: { tcp: true },
    requests: TEMPLATE_REQUESTS,
  },
  {
    // An empty CREDENTIALS_DIRECTORY counts as unset (Go's os.Getenv gives "" for both).
    name: "templates-empty-directory",
    files: FILES,
    args: ["-template", "-hooks", "{dir}/hooks.tmpl.json", "-verbose", "-ip", "127.0.0.1", "-port", "{port}"],
    env: { CREDENTIALS_DIRECTORY: "", api_token: "envtok", absent: "env-absent" },
    target: { tcp: true },
    requests: TEMPLATE_REQUESTS,
  },
];

/** A free 127.0.0.1 port (bound once and released). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Log lines worth comparing: where it serves, who asked, and errors; dates and request ids left out. */
function selectLog(stderr: string, placeholders: (text: string) => string): string[] {
  const out: string[] = [];
  for (const line of stderr.split("\n")) {
    const m = /^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d (.*)$/.exec(line);
    if (m === null) continue;
    const text = placeholders(m[1] as string).replace(/^\[[0-9a-f]{6}\] /, "[id] ");
    if (/serving hooks on|incoming HTTP|error|rules were not satisfied/.test(text)) out.push(text);
  }
  return out;
}

/** Sends one raw request on its own connection and reads until the server closes it (or `deadlineMs`). */
function exchange(
  to: { port: number } | { path: string },
  request: string,
  deadlineMs: number,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = "port" in to ? connect(to.port, "127.0.0.1") : connect(to.path);
    let out = "";
    const timer = setTimeout(() => done(), deadlineMs);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(out.replace(/\r\nDate: [^\r]*/g, ""));
    };
    socket.on("connect", () => socket.write(request));
    socket.on("data", (c: Buffer) => (out += c.toString("latin1")));
    socket.on("end", done);
    socket.on("error", done);
  });
}

/** Waits for a Unix socket file to appear (a server that binds it itself), up to `ms`. */
async function reachable(to: { port: number } | { path: string }, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = "port" in to ? connect(to.port, "127.0.0.1") : connect(to.path);
      s.on("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ends the process: SIGTERM (the server's own shutdown), SIGKILL after 5 s. Resolves with its exit code. */
function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill("SIGTERM");
  });
}

/**
 * Runs a scenario as `launch` says and returns what came back, with placeholders for what differs between runs.
 * Every process it starts is stopped before it settles.
 */
export async function runScenario(scenario: Scenario, launch: Launch): Promise<Recorded> {
  const { command, socketActivate } = launch;
  if (scenario.activate !== undefined && socketActivate === undefined)
    throw new Error(`${scenario.name} needs a socket-activation launcher (socketActivate)`);
  const dir = await mkdtemp(join(tmpdir(), "webhook-master-"));
  const port = String(await freePort());
  const port2 = String(await freePort());
  const fill = (text: string) =>
    text.replaceAll("{dir}", dir).replaceAll("{port2}", port2).replaceAll("{port}", port);
  const placeholders = (text: string) =>
    text
      .replaceAll(dir, "{dir}")
      .replaceAll(`:${port2}`, ":{port2}")
      .replaceAll(`:${port}`, ":{port}")
      .replace(/(127\.0\.0\.1|\[::1\]):\d+/g, "$1:{peer}");
  let child: ChildProcess | undefined;
  try {
    for (const [name, text] of Object.entries(scenario.files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), fill(text));
    }
    const env = Object.fromEntries(Object.entries(scenario.env).map(([k, v]) => [k, fill(v)]));
    const args = [...command.slice(1), ...scenario.args.map(fill)];
    if (scenario.activate !== undefined && socketActivate !== undefined) {
      const listen = scenario.activate.flatMap((a) => ["-l", fill(a)]);
      const setenv = Object.entries(env).flatMap(([k, v]) => ["-E", `${k}=${v}`]);
      child = spawn(socketActivate, [...listen, ...setenv, "--", command[0] as string, ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["ignore", "ignore", "pipe"],
      });
    } else {
      child = spawn(command[0] as string, args, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
        stdio: ["ignore", "ignore", "pipe"],
      });
    }
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", () => undefined);
    const to = "unix" in scenario.target ? { path: fill(scenario.target.unix) } : { port: Number(port) };
    // systemd-socket-activate listens at once and starts the server on the first connection; a server that
    // listens itself is waited for (its first log lines come before it listens).
    if (scenario.activate === undefined) await reachable(to, 20_000);
    else await reachable(to, 5_000);
    const answers: string[] = [];
    for (const request of scenario.requests) answers.push(placeholders(await exchange(to, request, 20_000)));
    const exit = await stop(child);
    return { answers, log: selectLog(stderr, placeholders), exit };
  } finally {
    if (child !== undefined) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Declares one test per scenario `which` selects, comparing ours (started as `launch` says) with the recorded
 * answers of upstream master in test/fixtures/master/answers.json.
 */
export function compareWithMaster(which: (scenario: Scenario) => boolean, launch: Launch): void {
  const fixture = JSON.parse(
    readFileSync(new URL("../../../test/fixtures/master/answers.json", import.meta.url), "utf8"),
  ) as { recordedWith: string; scenarios: Record<string, Recorded> };
  for (const scenario of SCENARIOS.filter(which)) {
    test(`${scenario.name}: as upstream master (${fixture.recordedWith})`, async () => {
      const expected = fixture.scenarios[scenario.name];
      assert.ok(
        expected !== undefined,
        `no recorded answers for ${scenario.name}: run the recording script again`,
      );
      assert.deepEqual(await runScenario(scenario, launch), expected);
    });
  }
}
