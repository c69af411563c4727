import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { removeDir, shHook, startHooksServer, tempDir, waitFor } from "./support/hooks-server.js";
import { ServerGroup } from "./support/server-group.js";

// `queue: N` with `maximum-concurrent-executions` (beyond upstream, adnanh/webhook#148): runs wait their turn.
const group = new ServerGroup();
type JobView = { state: string; reason: string | null };
let dir: string;

before(async () => {
  dir = await tempDir("webhook-queue-");
});

after(async () => {
  await group.stopAll();
  await removeDir(dir);
});

/** A hook whose command logs `start N`, waits for `go-N`, logs `end N`; N comes from the query. */
function orderedHook(id: string, extra: Record<string, unknown>): Record<string, unknown> {
  const hook = shHook(
    `echo start $1 >> ${join(dir, `${id}.order`)}; while [ ! -e ${join(dir, id)}-go-$1 ]; do sleep 0.02; done; echo end $1 >> ${join(dir, `${id}.order`)}`,
  );
  return {
    id,
    ...hook,
    "pass-arguments-to-command": [
      ...(hook["pass-arguments-to-command"] as unknown[]),
      { source: "string", name: "sh" },
      { source: "url", name: "n" },
    ],
    ...extra,
  };
}

const order = (id: string) => readFile(join(dir, `${id}.order`), "utf8").catch(() => "");
const go = (id: string, n: number) => writeFile(join(dir, `${id}-go-${n}`), "");

test("queue: runs past the limit wait in arrival order, shown as queued; past the queue, 429 with Retry-After", async () => {
  const server = await startHooksServer(group, {
    dir,
    hooks: [orderedHook("serial", { "maximum-concurrent-executions": 1, queue: 3 })],
    flags: ["-jobs-dir", join(dir, "jobs")],
  });
  const ids: string[] = [];
  for (const n of [1, 2, 3, 4]) {
    const res = await fetch(`${server.base}/hooks/serial?n=${n}`);
    assert.equal(res.status, 200);
    ids.push(res.headers.get("x-webhook-job-id") ?? "");
  }
  const state = async (id: string | undefined) =>
    (await (await fetch(`${server.base}/jobs/${id}`)).json()) as { state: string; reason: string | null };
  await waitFor("run 1 to start", async () => (await order("serial")) === "start 1\n");
  assert.deepEqual(await Promise.all(ids.map(async (id) => (await state(id)).state)), [
    "running",
    "queued",
    "queued",
    "queued",
  ]);
  const refused = await fetch(`${server.base}/hooks/serial?n=5`);
  assert.equal(refused.status, 429);
  assert.equal(await refused.text(), "Too many concurrent executions of this hook.");
  assert.match(refused.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  assert.equal(refused.headers.get("x-webhook-job-id"), null);
  // A queued job can be cancelled: it never runs.
  const cancelled = await fetch(`${server.base}/jobs/${ids[2]}`, { method: "DELETE" });
  assert.equal(cancelled.status, 202);
  // Out of the queue at once: the answer already says so (it said "queued" before, found by extensions-fuzz).
  assert.deepEqual(
    [((await cancelled.json()) as { state: string }).state, (await state(ids[2])).state],
    ["cancelled", "cancelled"],
  );
  await waitFor("job 3 to be cancelled", async () => (await state(ids[2])).state === "cancelled");
  assert.equal((await state(ids[2])).reason, "cancelled by DELETE /jobs/<id>");
  for (const n of [1, 2, 4]) {
    await go("serial", n);
    await waitFor(`run ${n} to end`, async () => (await order("serial")).includes(`end ${n}\n`));
  }
  assert.equal(await order("serial"), "start 1\nend 1\nstart 2\nend 2\nstart 4\nend 4\n");
  // The command wrote its last line before it exited: the job is recorded as done a moment later.
  await waitFor("job 4 to be recorded", async () => (await state(ids[3])).state !== "running");
  assert.deepEqual(await Promise.all(ids.map(async (id) => (await state(id)).state)), [
    "succeeded",
    "succeeded",
    "cancelled",
    "succeeded",
  ]);
});

test("queue: a streamed run whose client leaves while it waits never starts, and its delivery may be sent again", async () => {
  // Found by test/extensions-fuzz.test.ts: a client gone before the first byte was noticed only once the command,
  // started in its turn, wrote something, so the run started for nobody and its delivery counted as done.
  const server = await startHooksServer(group, {
    dir,
    hooks: [
      orderedHook("streamq", {
        "maximum-concurrent-executions": 1,
        queue: 1,
        "stream-command-output": true,
        "deduplicate-by": "X-Delivery",
      }),
    ],
    flags: ["-jobs-dir", join(dir, "streamq-jobs")],
  });
  const running = new AbortController();
  const first = fetch(`${server.base}/hooks/streamq?n=1`, {
    headers: { "X-Delivery": "d1" },
    signal: running.signal,
  }).catch(() => undefined);
  await waitFor("run 1 to start", async () => (await order("streamq")) === "start 1\n");
  const socket = connect(server.port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.write("GET /hooks/streamq?n=2 HTTP/1.1\r\nHost: x\r\nX-Delivery: d2\r\n\r\n");
  const jobsDir = join(dir, "streamq-jobs");
  const queuedJob = async () => {
    const names = (await readdir(jobsDir)).filter((n) => /^[0-9a-f]{32}$/.test(n));
    const jobs = await Promise.all(
      names.map(async (n) => JSON.parse(await readFile(join(jobsDir, n, "job.json"), "utf8")) as JobView),
    );
    return jobs.find((j) => j.state !== "running" && j.state !== "succeeded");
  };
  await waitFor("run 2 to be queued", async () => (await queuedJob())?.state === "queued");
  socket.destroy();
  await waitFor("run 2 to be cancelled", async () => (await queuedJob())?.state === "cancelled");
  assert.equal((await queuedJob())?.reason, "the client went away");
  await go("streamq", 1);
  await waitFor("run 1 to end", async () => (await order("streamq")).includes("end 1\n"));
  await first;
  running.abort();
  // Run 2 never started; the same delivery sent again runs.
  assert.equal(await order("streamq"), "start 1\nend 1\n");
  await go("streamq", 2);
  const again = await fetch(`${server.base}/hooks/streamq?n=2`, { headers: { "X-Delivery": "d2" } });
  assert.equal(again.status, 200);
  await again.text();
  assert.equal(await order("streamq"), "start 1\nend 1\nstart 2\nend 2\n");
});

test("queue: without -jobs-dir, a hook whose answer waits for the output is served in turn", async () => {
  const server = await startHooksServer(group, {
    dir,
    hooks: [
      {
        id: "sync",
        "include-command-output-in-response": true,
        "maximum-concurrent-executions": 1,
        queue: 1,
        ...shHook("date +%s%N; sleep 0.3; date +%s%N"),
      },
      { id: "limited", "maximum-concurrent-executions": 1, ...shHook("sleep 2") },
    ],
  });
  const answers = await Promise.all([1, 2].map(() => fetch(`${server.base}/hooks/sync`)));
  const spans = await Promise.all(
    answers.map(async (res) => {
      assert.equal(res.status, 200);
      return (await res.text()).trim().split("\n").map(BigInt);
    }),
  );
  spans.sort((a, b) => ((a[0] as bigint) < (b[0] as bigint) ? -1 : 1));
  // The second run started after the first ended.
  assert.ok((spans[1]?.[0] as bigint) >= (spans[0]?.[1] as bigint), JSON.stringify(spans.map(String)));
  // A limit without a queue answers as before: 429, no Retry-After.
  assert.equal((await fetch(`${server.base}/hooks/limited`)).status, 200);
  const refused = await fetch(`${server.base}/hooks/limited`);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), null);
});

test("queue: SIGTERM lets the running command finish within the grace and cancels the queued ones", async () => {
  const jobsDir = join(dir, "shutdown-jobs");
  const hooks = [orderedHook("graceful", { "maximum-concurrent-executions": 1, queue: 2 })];
  const first = await startHooksServer(group, { dir, hooks, flags: ["-jobs-dir", jobsDir] });
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const res = await fetch(`${first.base}/hooks/graceful?n=${n}`);
    ids.push(res.headers.get("x-webhook-job-id") ?? "");
  }
  await waitFor("run 1 to start", async () => (await order("graceful")) === "start 1\n");
  const exited = new Promise<number | null>((resolve) => first.child.once("exit", (code) => resolve(code)));
  first.child.kill("SIGTERM");
  // The running command ends during the grace; the server then exits.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await go("graceful", 1);
  assert.equal(await exited, 0);
  assert.match(first.log(), /caught terminated signal; exiting/);
  const second = await startHooksServer(group, { dir, hooks, flags: ["-jobs-dir", jobsDir] });
  const states = await Promise.all(
    ids.map(
      async (id) => (await (await fetch(`${second.base}/jobs/${id}`)).json()) as Record<string, unknown>,
    ),
  );
  assert.deepEqual(
    states.map((s) => [s.state, s.reason]),
    [
      ["succeeded", null],
      ["cancelled", "the server shut down before the job started"],
      ["cancelled", "the server shut down before the job started"],
    ],
  );
  assert.equal(await order("graceful"), "start 1\nend 1\n");
});

test("queue: a queue without maximum-concurrent-executions is refused, saying what it needs", async () => {
  const server = await startHooksServer(group, {
    dir,
    hooks: [{ id: "bad", queue: 2, ...shHook("true") }],
  });
  assert.match(server.log(), /hook "bad": queue needs maximum-concurrent-executions/);
});
