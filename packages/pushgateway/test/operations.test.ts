// Black-box tests of the operational surface: TLS, the web UI, the gateway's own metrics, lifecycle, persistence
// timing, logging flags, --version/--help, the external URL, and the unchecked mode.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { maskedCrc32c } from "../src/snappy-frames.js";
import { decodeUpstreamPersistence } from "../src/store/disk/upstream-persistence.js";
import { freePort, startGateway, stopAll, track } from "./support/processes.js";

after(stopAll);

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/pushgateway.js", import.meta.url));
const TLS_FIXTURES = fileURLToPath(new URL("../../test/fixtures/tls/", import.meta.url));

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

/** Polls until `check` holds (bounded, for effects upstream applies asynchronously); no timing is asserted. */
async function eventually(check: () => Promise<boolean>, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

test("TLS from --web.config.file (tls_server_config cert_file/key_file), a self-signed certificate", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-tls-"));
  try {
    // A committed self-signed certificate (fixtures/tls/README.md), so this suite needs no openssl program.
    await copyFile(join(TLS_FIXTURES, "cert.pem"), join(dir, "cert.pem"));
    await copyFile(join(TLS_FIXTURES, "key.pem"), join(dir, "key.pem"));
    // Relative paths resolve against the config file's directory, as exporter-toolkit does.
    await writeFile(join(dir, "web.yml"), "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n");
    const ca = await readFile(join(dir, "cert.pem"));
    const { child, base } = await startGateway([`--web.config.file=${join(dir, "web.yml")}`]);
    const port = new URL(base).port;
    const call = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, method, ca, agent: false }, (res) => {
          let text = "";
          res.on("data", (d: Buffer) => {
            text += d.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    try {
      assert.equal((await call("PUT", "/metrics/job/tls", "tls_metric 1\n")).status, 200);
      assert.match((await call("GET", "/metrics")).body, /^tls_metric\{instance="",job="tls"\} 1$/m);
      // Plain HTTP on the TLS port does not get an exposition.
      const plain = await fetch(`${base}/metrics`).then(
        (r) => r.status,
        () => "refused",
      );
      assert.notEqual(plain, 200);
    } finally {
      child.kill("SIGTERM");
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the web UI lists the groups and its Delete Group button's request deletes the group", async () => {
  const { child, base } = await startGateway(["--web.enable-admin-api", "--web.route-prefix=/pg"]);
  try {
    await fetch(`${base}/pg/metrics/job/ui/instance/a%20b`, {
      method: "PUT",
      body: "# TYPE ui_metric gauge\nui_metric 1\n",
    });
    await fetch(`${base}/pg/metrics/job/ui2/empty@base64/=`, { method: "PUT", body: "ui_other 1\n" });
    await fetch(`${base}/pg/metrics/job/ui2/empty@base64/=`, { method: "POST", body: "ui_other 1 5\n" });
    const page = await fetch(`${base}/pg/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    const html = await page.text();
    assert.match(html, /<title>Prometheus Pushgateway<\/title>/);
    assert.match(html, /job="ui"<\/span> <span class="label label-instance">instance="a b"/);
    assert.match(html, /<code class="name">ui_metric<\/code> <span class="type">GAUGE<\/span>/);
    assert.match(html, /job="ui2".*Last push failed!/);
    assert.match(html, /Delete All <span id="group-total">2<\/span> Groups/);
    const paths = [...html.matchAll(/class="delete danger" data-url="([^"]+)"/g)].map((m) => m[1] ?? "");
    assert.equal(paths.length, 2);
    // What the button does: DELETE to its path (absolute, below the prefix).
    for (const path of paths) {
      const r = await fetch(new URL(path, `${base}/pg/`), { method: "DELETE" });
      assert.equal(r.status, 202);
    }
    const after = await (await fetch(`${base}/pg/status`)).text();
    assert.doesNotMatch(after, /class="group/);
    assert.doesNotMatch(await (await fetch(`${base}/pg/metrics`)).text(), /job="ui/);
  } finally {
    child.kill("SIGTERM");
  }
});

test("the gateway's own metrics: request counters, push size and duration, process metrics, build info", async () => {
  const { child, base } = await startGateway();
  try {
    await fetch(`${base}/metrics/job/own`, { method: "PUT", body: "m 1\n" });
    await fetch(`${base}/metrics/job/own`, { method: "POST", body: "bad\n" });
    await fetch(`${base}/metrics/job/own`, { method: "DELETE" });
    await fetch(`${base}/-/healthy`);
    await fetch(`${base}/api/v1/status`);
    const text = await (await fetch(`${base}/metrics`)).text();
    assert.match(text, /^pushgateway_http_requests_total\{code="200",handler="push",method="put"\} 1$/m);
    assert.match(text, /^pushgateway_http_requests_total\{code="400",handler="push",method="post"\} 1$/m);
    assert.match(text, /^pushgateway_http_requests_total\{code="202",handler="delete",method="delete"\} 1$/m);
    assert.match(text, /^pushgateway_http_requests_total\{code="200",handler="healthy",method="get"\} 1$/m);
    assert.match(
      text,
      /^pushgateway_http_requests_total\{code="200",handler="api\/v1\/status",method="get"\} 1$/m,
    );
    // Scrapes are not counted, as upstream.
    assert.doesNotMatch(text, /handler="metrics"/);
    assert.match(text, /^# TYPE pushgateway_http_push_duration_seconds summary$/m);
    assert.match(text, /^pushgateway_http_push_duration_seconds\{method="put",quantile="0.5"\} \S+$/m);
    assert.match(text, /^pushgateway_http_push_duration_seconds_count\{method="post"\} 1$/m);
    const size = /^pushgateway_http_push_size_bytes_sum\{method="put"\} (\d+)$/m.exec(text);
    assert.ok(size && Number(size[1]) > "m 1\n".length, "push size counts headers and URL as promhttp");
    for (const name of [
      "process_cpu_seconds_total",
      "process_open_fds",
      "process_max_fds",
      "process_resident_memory_bytes",
      "process_virtual_memory_bytes",
      "process_virtual_memory_max_bytes",
      "process_start_time_seconds",
    ]) {
      assert.match(text, new RegExp(`^${name} \\S+$`, "m"), name);
    }
    assert.match(
      text,
      /^pushgateway_build_info\{branch="[^"]*",goarch="[^"]*",goos="[^"]*",goversion="[^"]*",revision="[^"]*",version="[^"]+"\} 1$/m,
    );
  } finally {
    child.kill("SIGTERM");
  }
});

test("/-/quit with --web.enable-lifecycle: 200, graceful exit, state persisted; GET is 405", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-quit-"));
  const file = join(dir, "store.json");
  try {
    const { child, base } = await startGateway(["--web.enable-lifecycle", `--persistence.file=${file}`]);
    await fetch(`${base}/metrics/job/q`, { method: "PUT", body: "q 1\n" });
    const get = await fetch(`${base}/-/quit`);
    assert.equal(get.status, 405);
    assert.equal(await get.text(), "Only POST or PUT requests allowed.");
    const quit = await fetch(`${base}/-/quit`, { method: "PUT" });
    assert.equal(quit.status, 200);
    assert.equal(await quit.text(), "Requesting termination... Goodbye!");
    assert.equal(await exited(child), 0);
    assert.deepEqual(
      (await decodeUpstreamPersistence(await readFile(file))).map((g) => g.labels.job),
      ["q"],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a persistence write that fails is logged as an error and the gateway still exits 0", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-persist-fail-"));
  // The file's directory does not exist: the start reads it as an empty store, every write fails.
  const file = join(dir, "missing", "store.json");
  try {
    const { child, base } = await startGateway([`--persistence.file=${file}`]);
    let log = "";
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    assert.equal((await fetch(`${base}/metrics/job/p`, { method: "PUT", body: "p 1\n" })).status, 200);
    child.kill("SIGTERM");
    assert.equal(await exited(child), 0);
    assert.match(log, /level=error msg="Error persisting metrics: ENOENT/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("--persistence.interval: the file is written after a change within the interval, not before", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-interval-"));
  const file = join(dir, "store.json");
  try {
    const { child, base } = await startGateway([`--persistence.file=${file}`, "--persistence.interval=2s"]);
    try {
      // Nothing changed: nothing written.
      assert.equal(existsSync(file), false);
      await fetch(`${base}/metrics/job/interval`, { method: "PUT", body: "iv 1\n" });
      // Right after the change the interval has not passed (2 s is far above a request's time).
      assert.equal(existsSync(file), false);
      assert.ok(await eventually(async () => existsSync(file)), "written within the interval");
      const groups = await decodeUpstreamPersistence(await readFile(file));
      assert.deepEqual(
        groups.map((g) => g.labels),
        [{ job: "interval" }],
      );
    } finally {
      child.kill("SIGTERM");
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Starts the gateway with logging flags, stops it, and returns its stderr lines. */
async function logsOf(args: string[]): Promise<string[]> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, `--web.listen-address=127.0.0.1:${port}`, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  track(child);
  let log = "";
  child.stderr.on("data", (d: Buffer) => {
    log += d.toString();
  });
  const ready = () =>
    fetch(`http://127.0.0.1:${port}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
  assert.ok(await eventually(ready));
  child.kill("SIGTERM");
  await exited(child);
  return log.split("\n").filter((l) => l !== "");
}

test("--log.format=json writes one JSON object per line; logfmt is the default", async () => {
  const json = (await logsOf(["--log.format=json"])).map((l) => JSON.parse(l) as Record<string, string>);
  const listening = json.find((l) => l.msg === "Listening on");
  assert.equal(listening?.level, "info");
  assert.match(listening?.address ?? "", /^127\.0\.0\.1:\d+$/);
  assert.match(listening?.ts ?? "", /^\d{4}-\d\d-\d\dT/);
  assert.ok(json.some((l) => l.msg === "received SIGINT/SIGTERM; exiting gracefully..."));
  const logfmt = await logsOf([]);
  assert.ok(
    logfmt.some((l) => /^ts=\S+ level=info msg="Listening on" address=127\.0\.0\.1:\d+$/.test(l)),
    logfmt.join("\n"),
  );
});

test("--log.level filters: debug shows debug lines, error hides info; a bad level is a usage error", async () => {
  const debug = await logsOf(["--log.level=debug"]);
  assert.ok(debug.some((l) => l.includes("level=debug")));
  const error = await logsOf(["--log.level=error"]);
  assert.deepEqual(error, []);
  const bad = await exec(process.execPath, [BIN, "--log.level=loud"], { timeout: 30_000 }).then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal(bad?.code, 1);
  assert.equal(bad?.stderr, "pushgateway: error: unrecognized log level loud, try --help\n");
});

test("--version and --help print to stdout and exit 0 (upstream ≥1.9.0, #651)", async () => {
  const version = await exec(process.execPath, [BIN, "--version"], { timeout: 30_000 });
  assert.match(
    version.stdout,
    /^pushgateway, version \d+\.\d+\.\d+ \(branch: [^,]*, revision: [^)]*\)\n {2}build user: .*\n {2}build date: .*\n {2}go version: .*\n {2}platform: .*\n/,
  );
  assert.equal(version.stderr, "");
  const help = await exec(process.execPath, [BIN, "--help"], { timeout: 30_000 });
  assert.match(help.stdout, /^usage: pushgateway \[<flags>\]/);
  for (const flag of [
    "web.listen-address",
    "web.external-url",
    "persistence.interval",
    "log.format",
    "push.disable-consistency-check",
  ]) {
    assert.ok(help.stdout.includes(flag), flag);
  }
});

test("--web.external-url's path becomes the route prefix", async () => {
  const { child, base } = await startGateway(["--web.external-url=http://gateway.example:9091/ext/"]);
  try {
    assert.equal((await fetch(`${base}/ext/metrics/job/e`, { method: "PUT", body: "e 1\n" })).status, 200);
    assert.equal((await fetch(`${base}/metrics/job/e`, { method: "PUT", body: "e 1\n" })).status, 404);
    assert.match(await (await fetch(`${base}/ext/metrics`)).text(), /^e\{instance="",job="e"\} 1$/m);
    assert.equal(await (await fetch(`${base}/ext/-/ready`)).text(), "OK");
    const status = (await (await fetch(`${base}/ext/api/v1/status`)).json()) as {
      data: { flags: Record<string, string> };
    };
    assert.equal(status.data.flags["web.external-url"], "http://gateway.example:9091/ext/");
  } finally {
    child.kill("SIGTERM");
  }
});

test("--push.disable-consistency-check: 202 for every push that parses; an inconsistent store fails scrapes", async () => {
  const { child, base } = await startGateway(["--push.disable-consistency-check"]);
  try {
    const put = (path: string, body: string) => fetch(`${base}${path}`, { method: "PUT", body });
    assert.equal((await put("/metrics/job/a", "# TYPE x gauge\nx 1\n")).status, 202);
    // Timestamps are dropped silently (only the failure time is set); parse errors are still 400.
    assert.equal((await put("/metrics/job/t", "m 1 5\n")).status, 202);
    assert.equal((await put("/metrics/job/p", "bad\n")).status, 400);
    assert.match(
      await (await fetch(`${base}/metrics`)).text(),
      /^push_failure_time_seconds\{instance="",job="t"\} [1-9]/m,
    );
    assert.equal((await put("/metrics/job/b", "# TYPE x counter\nx 1\n")).status, 202);
    const scrape = await fetch(`${base}/metrics`);
    assert.equal(scrape.status, 500);
    assert.match(
      await scrape.text(),
      /^An error has occurred while serving metrics:\n\ncollected metric "x" \{ .*\} is not a (GAUGE|COUNTER)\n$/,
    );
    await fetch(`${base}/metrics/job/b`, { method: "DELETE" });
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
    // A series held by two groups is the other gather error.
    assert.equal((await put("/metrics/job/d/instance/x", "dup 1\n")).status, 202);
    assert.equal((await put("/metrics/job/d", 'dup{instance="x"} 2\n')).status, 202);
    const dup = await fetch(`${base}/metrics`);
    assert.equal(dup.status, 500);
    assert.match(
      await dup.text(),
      /collected metric "dup" \{ .*\} was collected before with the same name and label values\n$/,
    );
  } finally {
    child.kill("SIGTERM");
  }
});

test("beyond upstream: --push.max-body-bytes also bounds what a snappy body inflates to", async () => {
  const { child, base } = await startGateway(["--push.max-body-bytes=64"]);
  try {
    // One compressed chunk: `m 1\n#` as a literal, 10 copies of 64 bytes at offset 1, then `\n` (646 bytes out).
    const data = Buffer.from(`m 1\n${"#".repeat(641)}\n`);
    const copies = Array.from({ length: 10 }, () => [(63 << 2) | 2, 1, 0]).flat();
    const block = Buffer.from([0x86, 0x05, 4 << 2, ...Buffer.from("m 1\n#"), ...copies, 0, 0x0a]);
    const head = Buffer.alloc(8);
    head.writeUInt8(0x00, 0);
    head.writeUIntLE(block.length + 4, 1, 3);
    head.writeUInt32LE(maskedCrc32c(data), 4);
    const body = Buffer.concat([Buffer.from([0xff, 6, 0, 0]), Buffer.from("sNaPpY"), head, block]);
    assert.ok(body.length <= 64);
    const headers = { "Content-Encoding": "snappy" };
    const res = await fetch(`${base}/metrics/job/bomb`, { method: "PUT", body, headers });
    assert.equal(res.status, 413);
    assert.match(await res.text(), /exceeds the limit of 64 bytes set by --push\.max-body-bytes/);
    assert.doesNotMatch(await (await fetch(`${base}/metrics`)).text(), /job="bomb"/);
  } finally {
    child.kill("SIGTERM");
  }
});

test("Content-Encoding: snappy bodies (framing format) are decoded as upstream ≥1.6.0; corrupt ones are 400", async () => {
  const { child, base } = await startGateway();
  try {
    const data = Buffer.from("# TYPE snappy_metric gauge\nsnappy_metric 7\n");
    const head = Buffer.alloc(8);
    head.writeUInt8(0x01, 0);
    head.writeUIntLE(data.length + 4, 1, 3);
    head.writeUInt32LE(maskedCrc32c(data), 4);
    const body = Buffer.concat([Buffer.from([0xff, 6, 0, 0]), Buffer.from("sNaPpY"), head, data]);
    const headers = { "Content-Encoding": "Snappy" };
    assert.equal((await fetch(`${base}/metrics/job/sn`, { method: "PUT", body, headers })).status, 200);
    assert.match(await (await fetch(`${base}/metrics`)).text(), /^snappy_metric\{instance="",job="sn"\} 7$/m);
    const bad = await fetch(`${base}/metrics/job/sn`, { method: "PUT", body: data, headers });
    assert.equal(bad.status, 400);
    assert.equal(await bad.text(), "snappy: corrupt input\n");
  } finally {
    child.kill("SIGTERM");
  }
});
