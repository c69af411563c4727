import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import {
  alive,
  type HooksServer,
  httpGet,
  removeDir,
  shHook,
  startHooksServer,
  tempDir,
  waitFor,
} from "./support/hooks-server.js";
import { rawRequest } from "./support/raw-http.js";
import { ServerGroup } from "./support/server-group.js";

// `-jobs-dir` (beyond upstream; adnanh/webhook#205, as ncarlier/webhookd): every run a job at /jobs/<id>.
const group = new ServerGroup();
let dir: string;
let jobsDir: string;
let server: HooksServer;
const FIELDS = ["id", "hook", "state", "exit_code", "started_at", "finished_at", "output_bytes", "reason"];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const waitGo = (name: string) => `while [ ! -e ${join(dir, name)} ]; do sleep 0.02; done`;

function hooks(): Record<string, unknown>[] {
  return [
    { id: "follow", "response-message": "queued up", ...shHook(`echo first; ${waitGo("go")}; echo second`) },
    { id: "fails", ...shHook("echo oops; exit 3") },
    { id: "slow", timeout: 1, ...shHook("sleep 30") },
    { id: "cancel-me", ...shHook(`echo $$ > ${join(dir, "cancel.pid")}; exec sleep 1000`) },
    { id: "chatty", ...shHook("i=0; while [ $i -lt 10 ]; do printf '%010d' $i; i=$((i+1)); done") },
    { id: "kept", ...shHook("echo kept") },
    { id: "sync", "include-command-output-in-response": true, ...shHook("echo synced") },
    { id: "hang", ...shHook(`echo partial; echo $$ > ${join(dir, "hang.pid")}; exec sleep 1000`) },
    {
      id: "delivery",
      "deduplicate-by": "X-GitHub-Delivery",
      "response-message": "thanks",
      ...shHook(`echo ran >> ${join(dir, "delivery.runs")}`),
    },
  ];
}

async function startServer(): Promise<HooksServer> {
  return startHooksServer(group, {
    dir,
    hooks: hooks(),
    flags: ["-jobs-dir", jobsDir, "-jobs-keep", "3", "-jobs-output-bytes", "32"],
  });
}

before(async () => {
  dir = await tempDir("webhook-jobs-");
  jobsDir = join(dir, "jobs");
  server = await startServer();
});

after(async () => {
  await group.stopAll();
  for (const file of ["cancel.pid", "hang.pid"]) {
    const pid = Number(await readFile(join(dir, file), "utf8").catch(() => "0"));
    if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
  }
  await removeDir(dir);
});

async function trigger(
  hook: string,
  headers: Record<string, string> = {},
): Promise<{ res: Response; id: string }> {
  const res = await fetch(`${server.base}/hooks/${hook}`, { headers });
  const id = res.headers.get("x-webhook-job-id") ?? "";
  assert.match(id, /^[0-9a-f]{32}$/, `${hook} answers with a job id`);
  return { res, id };
}

async function job(id: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.base}/jobs/${id}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  return (await res.json()) as Record<string, unknown>;
}

async function settled(id: string): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  await waitFor(`job ${id} to end`, async () => {
    last = await job(id);
    return last.state !== "running" && last.state !== "queued";
  });
  return last;
}

test("jobs: a run answers with its id and Location; its output is followed while it runs", async () => {
  const { res, id } = await trigger("follow");
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "queued up");
  assert.equal(res.headers.get("location"), `/jobs/${id}`);
  const running = await job(id);
  assert.deepEqual(Object.keys(running), FIELDS);
  assert.equal(running.hook, "follow");
  assert.equal(running.state, "running");
  assert.equal(running.exit_code, null);
  assert.match(String(running.started_at), RFC3339);
  assert.equal(running.finished_at, null);
  const output = await fetch(`${server.base}/jobs/${id}/output`, { signal: AbortSignal.timeout(20_000) });
  assert.equal(output.status, 200);
  const reader = (output.body as ReadableStream<Uint8Array>).getReader();
  assert.equal(Buffer.from((await reader.read()).value as Uint8Array).toString(), "first\n");
  await writeFile(join(dir, "go"), "");
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += Buffer.from(value).toString();
  }
  assert.equal(rest, "second\n");
  const done = await settled(id);
  assert.equal(done.state, "succeeded");
  assert.equal(done.exit_code, 0);
  assert.equal(done.output_bytes, 13);
  assert.equal(done.reason, null);
  assert.match(String(done.finished_at), RFC3339);
  const again = await httpGet(`${server.base}/jobs/${id}/output`);
  assert.equal(again.body.toString(), "first\nsecond\n");
  assert.deepEqual(again.trailers, { "x-webhook-exit-code": "0" });
});

test("jobs: failed, timed-out and cancelled runs say so; DELETE stops the process group", async () => {
  const failed = await settled((await trigger("fails")).id);
  assert.equal(failed.state, "failed");
  assert.equal(failed.exit_code, 3);
  assert.equal(failed.reason, null);
  const slow = await settled((await trigger("slow")).id);
  assert.equal(slow.state, "timed-out");
  assert.equal(slow.exit_code, null);
  assert.equal(slow.reason, "signal: terminated");
  const { id } = await trigger("cancel-me");
  await waitFor(
    "cancel-me's pid",
    async () => (await readFile(join(dir, "cancel.pid"), "utf8").catch(() => "")) !== "",
  );
  const pid = Number(await readFile(join(dir, "cancel.pid"), "utf8"));
  const deleted = await fetch(`${server.base}/jobs/${id}`, { method: "DELETE" });
  assert.equal(deleted.status, 202);
  await waitFor(`process ${pid} to end`, () => !alive(pid));
  const cancelled = await settled(id);
  assert.equal(cancelled.state, "cancelled");
  assert.equal(cancelled.reason, "cancelled by DELETE /jobs/<id>");
  const again = await fetch(`${server.base}/jobs/${id}`, { method: "DELETE" });
  assert.equal(again.status, 409);
  const post = await fetch(`${server.base}/jobs/${id}`, { method: "POST" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD, DELETE");
});

test("jobs: only the last -jobs-output-bytes are kept (on disk too); output_bytes counts them all", async () => {
  const { id } = await trigger("chatty");
  const done = await settled(id);
  assert.equal(done.output_bytes, 100);
  const output = await httpGet(`${server.base}/jobs/${id}/output`);
  const all = Array.from({ length: 10 }, (_, i) => String(i).padStart(10, "0")).join("");
  assert.equal(output.body.toString(), all.slice(-32));
  let onDisk = 0;
  for (const name of await readdir(join(jobsDir, id))) {
    if (name.startsWith("output.")) onDisk += (await stat(join(jobsDir, id, name))).size;
  }
  assert.ok(onDisk <= 64, `${onDisk} bytes of output on disk`);
});

test("jobs: only the newest -jobs-keep of a hook are kept", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const { id } = await trigger("kept");
    await settled(id);
    ids.push(id);
  }
  for (const id of ids.slice(0, 2)) {
    assert.equal((await fetch(`${server.base}/jobs/${id}`)).status, 404);
    assert.equal(await stat(join(jobsDir, id)).catch(() => undefined), undefined);
  }
  for (const id of ids.slice(2)) assert.equal((await job(id)).state, "succeeded");
});

test("jobs: unknown and malformed ids are 404 (after upstream's path cleaning) and read nothing outside the directory", async () => {
  await writeFile(join(dir, "secret.txt"), "do not serve");
  const { id } = await trigger("kept");
  const answers: [string, number, string][] = [];
  for (const path of [
    "/jobs/0123456789abcdef0123456789abcdef",
    `/jobs/${id.toUpperCase()}`,
    "/jobs/x",
    "/jobs/",
    `/jobs/${id}/nothing`,
    `/jobs/${id}/output/x`,
    "/jobs/..%2fsecret.txt",
    "/jobs/%2e%2e/secret.txt",
    `/jobs/${id}/../../secret.txt`,
    "/jobs/../secret.txt",
    "/jobs/..",
    "/jobs/%00",
  ]) {
    const res = await rawRequest(server.port, { method: "GET", path });
    answers.push([path, res.status, res.body.toString()]);
    assert.doesNotMatch(res.body.toString(), /do not serve/);
  }
  assert.deepEqual(answers, [
    ["/jobs/0123456789abcdef0123456789abcdef", 404, "Job not found."],
    [`/jobs/${id.toUpperCase()}`, 404, "Job not found."],
    ["/jobs/x", 404, "Job not found."],
    ["/jobs/", 404, "Job not found."],
    [`/jobs/${id}/nothing`, 404, "Job not found."],
    [`/jobs/${id}/output/x`, 404, "Job not found."],
    // Decoded and cleaned as gorilla/mux does: a redirect to the cleaned path, which is no job.
    ["/jobs/..%2fsecret.txt", 301, ""],
    ["/jobs/%2e%2e/secret.txt", 301, ""],
    [`/jobs/${id}/../../secret.txt`, 301, ""],
    ["/jobs/../secret.txt", 301, ""],
    ["/jobs/..", 301, ""],
    ["/jobs/%00", 404, "Job not found."],
  ]);
  const followed = await rawRequest(server.port, { method: "GET", path: "/secret.txt" });
  assert.equal(followed.status, 404);
  assert.equal(followed.body.toString(), "404 page not found\n");
});

test("jobs: a sync hook's answer carries its job id; deliveries seen before run nothing again", async () => {
  const { res, id } = await trigger("sync");
  assert.equal(await res.text(), "synced\n");
  assert.equal(res.headers.get("location"), null);
  assert.equal((await job(id)).state, "succeeded");
  const first = await trigger("delivery", { "X-GitHub-Delivery": "d-1" });
  assert.equal(await first.res.text(), "thanks");
  await settled(first.id);
  const second = await trigger("delivery", { "X-GitHub-Delivery": "d-1" });
  assert.equal(second.res.status, 200);
  assert.equal(second.id, first.id);
  const other = await trigger("delivery", { "X-GitHub-Delivery": "d-2" });
  assert.notEqual(other.id, first.id);
  await settled(other.id);
  // No delivery id: nothing to compare, so it runs.
  await settled((await trigger("delivery")).id);
  assert.equal(await readFile(join(dir, "delivery.runs"), "utf8"), "ran\nran\nran\n");
});

test("jobs: a crash during a job leaves it failed with the reason; jobs and deliveries survive the restart", async () => {
  const { id: hung } = await trigger("hang");
  await waitFor("hang's output", async () => (await job(hung)).output_bytes === 8);
  const { id: finished } = await trigger("kept");
  const before = await settled(finished);
  server.child.kill("SIGKILL");
  await new Promise((resolve) => server.child.once("exit", resolve));
  // A record spoilt by hand is skipped (and said so), not served.
  const spoilt = "ffffffffffffffffffffffffffffffff";
  await mkdir(join(jobsDir, spoilt));
  await writeFile(join(jobsDir, spoilt, "job.json"), JSON.stringify({ id: spoilt, state: "exploded" }));
  server = await startServer();
  assert.match(server.log(), /jobs: skipping .*ffffffffffffffffffffffffffffffff: job\.json: bad hook, state/);
  assert.equal((await fetch(`${server.base}/jobs/${spoilt}`)).status, 404);
  const crashed = await job(hung);
  assert.equal(crashed.state, "failed");
  assert.equal(crashed.exit_code, null);
  assert.equal(crashed.reason, "the server stopped while the job was running");
  assert.equal(crashed.output_bytes, 8);
  assert.equal((await httpGet(`${server.base}/jobs/${hung}/output`)).body.toString(), "partial\n");
  assert.deepEqual(await job(finished), before);
  const replay = await trigger("delivery", { "X-GitHub-Delivery": "d-1" });
  assert.equal((await readFile(join(dir, "delivery.runs"), "utf8")).split("\n").length - 1, 3);
  assert.match(replay.id, /^[0-9a-f]{32}$/);
});

test("jobs: a FIFO as a job.json, a delivery or an output segment blocks neither start-up nor a reader", async () => {
  const { id: kept } = await trigger("kept");
  const before = await settled(kept);
  server.child.kill("SIGKILL");
  await new Promise((resolve) => server.child.once("exit", resolve));
  const fifoJob = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
  await mkdir(join(jobsDir, fifoJob));
  execFileSync("mkfifo", [join(jobsDir, fifoJob, "job.json")]);
  await mkdir(join(jobsDir, "deliveries"), { recursive: true });
  const fifoDelivery = join(jobsDir, "deliveries", "a".repeat(64));
  execFileSync("mkfifo", [fifoDelivery]);
  await rm(join(jobsDir, kept, "output.0"));
  execFileSync("mkfifo", [join(jobsDir, kept, "output.0")]);
  // Start-up would block on any of them read as a plain file; startServer has a deadline.
  server = await startServer();
  assert.match(
    server.log(),
    /jobs: skipping .*e{32}: open .*job\.json: is a named pipe \(FIFO\), not a regular file/,
  );
  assert.equal((await fetch(`${server.base}/jobs/${fifoJob}`)).status, 404);
  assert.equal(
    existsSync(fifoDelivery),
    false,
    "a delivery entry that is no regular file is removed as a spoilt one",
  );
  assert.deepEqual(await job(kept), before);
  // The segment that became a FIFO is skipped as a missing one: the answer ends at once, empty.
  const output = await httpGet(`${server.base}/jobs/${kept}/output`);
  assert.equal(output.status, 200);
  assert.equal(output.body.length, 0);
  assert.equal((await fetch(`${server.base}/`)).status, 200);
});

test("jobs: -urlprefix jobs is refused with -jobs-dir; without -jobs-dir /jobs/ and the keys stay upstream's", async () => {
  const refused = spawnSync(process.execPath, [OUR_WEBHOOK, "-jobs-dir", jobsDir, "-urlprefix", "jobs"], {
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.equal(refused.status, 2);
  assert.match(
    refused.stderr,
    /invalid value "jobs" for flag -urlprefix: with -jobs-dir, \/jobs\/ serves the jobs/,
  );
  const plainDir = join(dir, "plain");
  await mkdir(plainDir);
  const plain = await startHooksServer(group, { dir: plainDir, hooks: [{ id: "x", ...shHook("true") }] });
  const res = await rawRequest(plain.port, { method: "GET", path: "/jobs/0123456789abcdef0123456789abcdef" });
  assert.equal(res.status, 404);
  assert.equal(res.body.toString(), "404 page not found\n");
  const hook = await rawRequest(plain.port, { method: "GET", path: "/hooks/x" });
  assert.deepEqual(
    hook.headers.map(([k]) => k),
    ["Date", "Content-Length", "Connection"],
  );
  // deduplicate-by needs the jobs directory: the file is refused, as a file that does not parse, saying why.
  const refusing = await startHooksServer(group, {
    dir: plainDir,
    hooks: [{ id: "d", "deduplicate-by": "X-GitHub-Delivery", ...shHook("true") }],
  });
  assert.match(refusing.log(), /hook "d": deduplicate-by needs -jobs-dir/);
  assert.equal((await rawRequest(refusing.port, { method: "GET", path: "/hooks/d" })).status, 404);
});
