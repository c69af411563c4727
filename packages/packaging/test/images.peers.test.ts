import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { greetHooks } from "./support/greet-hooks.js";
import { request } from "./support/http-request.js";
import { buildNodeStandin } from "./support/node-standin-image.js";
import { podmanEnv } from "./support/podman-env.js";
import { REPO, toolVersion } from "./support/release-files.js";
import { run, runOk } from "./support/run.js";
import { waitFor } from "./support/wait-for.js";

// Issue 33 item 2 and its tests: both images built by `npm run images` (scripts/images.mjs) from their
// Containerfiles with Debian's podman/buildah, on a stand-in for node:20-bookworm-slim built from this machine's
// Node (nothing is pulled), then run with runc: a push and a scrape, a hook that runs, the uid, SIGTERM's exit status
// and time, and the Pushgateway's persistence across containers on one volume.

const work = mkdtempSync(join(tmpdir(), "packaging-images-"));
chmodSync(work, 0o755);
const env = podmanEnv(work);
const TAG_PREFIX = "localhost/packaging-test-";
const VOLUME = "packaging-test-pushgateway-data";
const containers: string[] = [];

function podman(args: string[], timeoutMs = 60_000) {
  return runOk("podman", args, { env, timeoutMs });
}

before(async () => {
  const base = await buildNodeStandin({ work, env, name: "localhost/packaging-test-node:20-standin" });
  await runOk(
    process.execPath,
    [
      join(REPO, "scripts", "images.mjs"),
      "--engine",
      "podman",
      "--node-image",
      base,
      "--tag-prefix",
      TAG_PREFIX,
    ],
    { env, timeoutMs: 480_000 },
  );
});

after(async () => {
  for (const name of containers)
    await run("podman", ["rm", "--force", "--time", "0", name], { env, timeoutMs: 60_000 });
  await run("podman", ["volume", "rm", "--force", VOLUME], { env, timeoutMs: 60_000 });
  rmSync(work, { recursive: true, force: true });
});

function image(tool: string): string {
  return `${TAG_PREFIX}${tool}:${toolVersion(tool)}`;
}

/** Starts a container with `port` published on a free loopback port; returns that port. */
async function start(
  name: string,
  options: { image: string; port: number; runArgs?: string[]; args?: string[] },
) {
  containers.push(name);
  await podman([
    "run",
    "--detach",
    "--runtime",
    "runc",
    "--name",
    name,
    "--publish",
    `127.0.0.1::${options.port}`,
    ...(options.runArgs ?? []),
    options.image,
    ...(options.args ?? []),
  ]);
  const { stdout } = await podman(["port", name, `${options.port}/tcp`]);
  const published = /:(\d+)\s*$/.exec(stdout.trim());
  assert.ok(published, `podman port: ${stdout}`);
  return Number(published[1]);
}

/** The container's output so far, for a wait's failure message. */
const logs = (name: string) => () => {
  const result = spawnSync("podman", ["logs", name], { env, encoding: "utf8", timeout: 10_000 });
  return `podman logs ${name}:\n${result.stdout}${result.stderr}`;
};

/** The real uid of the container's main process, read from the host's /proc (podman runs it without a user namespace). */
async function uidOf(name: string): Promise<number> {
  const { stdout } = await podman(["inspect", "--format", "{{.State.Pid}}", name]);
  const status = readFileSync(`/proc/${stdout.trim()}/status`, "utf8");
  const uid = /^Uid:\s+(\d+)/m.exec(status);
  assert.ok(uid, status);
  return Number(uid[1]);
}

/** Sends SIGTERM to the container's main process and waits for it (15 s at most): its exit code and the time taken. */
async function sigterm(name: string): Promise<{ code: number; ms: number }> {
  const started = Date.now();
  await podman(["kill", "--signal", "TERM", name]);
  const { stdout } = await podman(["wait", name], 15_000);
  return { code: Number(stdout.trim()), ms: Date.now() - started };
}

async function config(ref: string): Promise<Record<string, unknown>> {
  const { stdout } = await podman(["image", "inspect", "--format", "{{json .Config}}", ref]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

test("the Pushgateway image: non-root, takes a push, answers a scrape, persists on SIGTERM to a volume a new container reads", async () => {
  const ref = image("pushgateway");
  const cfg = await config(ref);
  assert.equal(cfg.User, "node");
  assert.deepEqual(Object.keys(cfg.ExposedPorts as object), ["9091/tcp"]);
  assert.deepEqual(Object.keys(cfg.Volumes as object), ["/data"]);

  await podman(["volume", "create", VOLUME]);
  // A long interval: the only write is the one on shutdown, so the second container sees what SIGTERM persisted.
  const flags = ["--persistence.file=/data/pushgateway.store", "--persistence.interval=1h"];
  const port = await start("packaging-test-pushgateway-1", {
    image: ref,
    port: 9091,
    runArgs: ["--volume", `${VOLUME}:/data`],
    args: flags,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    "the Pushgateway container to be ready",
    async () => ((await request(`${base}/-/ready`)).status === 200 ? true : undefined),
    {
      timeoutMs: 60_000,
      detail: logs("packaging-test-pushgateway-1"),
    },
  );
  const pushed = await request(`${base}/metrics/job/backup/instance/db1`, {
    method: "PUT",
    body: "# TYPE backup_last_success_seconds gauge\nbackup_last_success_seconds 1.7e+09\n",
  });
  assert.equal(pushed.status, 200, pushed.body);
  const scraped = await request(`${base}/metrics`);
  assert.match(scraped.body, /^backup_last_success_seconds\{instance="db1",job="backup"\} 1\.7e\+09$/m);
  assert.equal(await uidOf("packaging-test-pushgateway-1"), 1000);
  const stopped = await sigterm("packaging-test-pushgateway-1");
  assert.equal(stopped.code, 0);
  assert.ok(stopped.ms < 10_000, `SIGTERM took ${stopped.ms} ms`);

  const again = await start("packaging-test-pushgateway-2", {
    image: ref,
    port: 9091,
    runArgs: ["--volume", `${VOLUME}:/data`],
    args: flags,
  });
  const restored = await waitFor(
    "the second container to serve the persisted metrics",
    async () => {
      const r = await request(`http://127.0.0.1:${again}/metrics`);
      return r.status === 200 ? r.body : undefined;
    },
    { timeoutMs: 60_000, detail: logs("packaging-test-pushgateway-2") },
  );
  assert.match(restored, /^backup_last_success_seconds\{instance="db1",job="backup"\} 1\.7e\+09$/m);
  const second = await sigterm("packaging-test-pushgateway-2");
  assert.equal(second.code, 0);
});

test("the webhook image: upstream-style default arguments, non-root, a hook that runs a command, SIGTERM exits 0", async () => {
  const ref = image("webhook");
  const cfg = await config(ref);
  assert.equal(cfg.User, "node");
  assert.deepEqual(Object.keys(cfg.ExposedPorts as object), ["9000/tcp"]);
  assert.deepEqual(cfg.Cmd, ["-verbose", "-hooks=/etc/webhook/hooks.json", "-hotreload"]);

  // A directory mounted on /etc/webhook, as the third-party images' READMEs show it (almir/webhook).
  const hooksDir = join(work, "webhook-hooks");
  mkdirSync(hooksDir);
  chmodSync(hooksDir, 0o755);
  const hooks = join(hooksDir, "hooks.json");
  writeFileSync(hooks, greetHooks({ script: 'echo "hello $1"' }));
  chmodSync(hooks, 0o644);
  // Only the hooks directory is given: the image's own arguments (-verbose -hooks=/etc/webhook/hooks.json -hotreload).
  const port = await start("packaging-test-webhook", {
    image: ref,
    port: 9000,
    runArgs: ["--volume", `${hooksDir}:/etc/webhook:ro`],
  });
  const answer = await waitFor(
    "the webhook container to run the hook",
    async () => {
      const r = await request(`http://127.0.0.1:${port}/hooks/greet?who=container`);
      return r.status === 200 ? r : undefined;
    },
    { timeoutMs: 60_000, detail: logs("packaging-test-webhook") },
  );
  assert.equal(answer.body, "hello container\n");
  assert.equal(await uidOf("packaging-test-webhook"), 1000);
  assert.match(logs("packaging-test-webhook")(), /executing \/bin\/sh/, "-verbose logs each command");
  // -hotreload: the hooks file, changed on the host, is read again.
  writeFileSync(hooks, greetHooks({ script: 'echo "reloaded $1"' }));
  const reloaded = await waitFor(
    "the webhook container to reload its hooks",
    async () => {
      const r = await request(`http://127.0.0.1:${port}/hooks/greet?who=container`);
      return r.body === "reloaded container\n" ? r : undefined;
    },
    { timeoutMs: 30_000, detail: logs("packaging-test-webhook") },
  );
  assert.equal(reloaded.status, 200);
  const stopped = await sigterm("packaging-test-webhook");
  assert.equal(stopped.code, 0);
  assert.ok(stopped.ms < 10_000, `SIGTERM took ${stopped.ms} ms`);
});
