import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parse } from "yaml";
import { freePort } from "./support/free-port.js";
import { request } from "./support/http-request.js";
import { REPO, toolVersion } from "./support/release-files.js";
import { run, userEnv } from "./support/run.js";
import { output, Servers } from "./support/servers.js";
import { waitFor } from "./support/wait-for.js";

// Issue 33 item 4: packages/pushgateway/docs/docker-compose.yml (replicas on Redis) run as it says, without a
// container engine: Debian's redis-server with the file's Redis command, two Pushgateway processes with the file's
// flags (the image's entrypoint is the Pushgateway), its healthcheck run against each, a push to one replica read
// from the other, and SIGTERM's exit status.

interface Compose {
  services: {
    redis: { image: string; command: string[] };
    pushgateway: {
      image: string;
      command: string[];
      deploy: { replicas: number };
      healthcheck: { test: string[] };
    };
  };
}

const compose = parse(
  readFileSync(join(REPO, "packages", "pushgateway", "docs", "docker-compose.yml"), "utf8"),
) as Compose;
const work = mkdtempSync(join(tmpdir(), "packaging-compose-"));
const servers = new Servers();

after(async () => {
  await servers.stopAll();
  rmSync(work, { recursive: true, force: true });
});

test("the compose file names the image `npm run images` builds", () => {
  const version = toolVersion("pushgateway");
  assert.equal(compose.services.pushgateway.image, `\${PUSHGATEWAY_IMAGE:-localhost/pushgateway:${version}}`);
  assert.ok(compose.services.pushgateway.deploy.replicas > 1);
});

test("the compose file's replicas on its Redis are one gateway, pass its healthcheck and stop with exit 0", async () => {
  const redisPort = await freePort();
  const [redisProgram, ...redisArgs] = compose.services.redis.command;
  assert.equal(redisProgram, "redis-server");
  const redis = servers.start(
    "/usr/bin/redis-server",
    [...redisArgs, "--port", String(redisPort), "--bind", "127.0.0.1", "--dir", work, "--save", ""],
    { cwd: work },
  );
  const flags = compose.services.pushgateway.command.map((flag) =>
    flag.replace("redis://redis:6379/", `redis://127.0.0.1:${redisPort}/`),
  );
  assert.ok(
    flags.some((flag) => flag.startsWith(`--storage.redis-url=redis://127.0.0.1:${redisPort}/`)),
    flags.join(" "),
  );
  const replicas = [];
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const child = servers.start(
      process.execPath,
      [
        join(REPO, "packages", "pushgateway", "bin", "pushgateway.js"),
        ...flags,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { cwd: work, env: userEnv() },
    );
    replicas.push({ port, child });
  }
  // The healthcheck as the file writes it (an exec array run by node), pointed at each replica.
  const [node, ...check] = compose.services.pushgateway.healthcheck.test.slice(1);
  assert.equal(node, "node");
  for (const { port, child } of replicas) {
    const args = check.map((arg) => arg.replace("127.0.0.1:9091", `127.0.0.1:${port}`));
    await waitFor(
      `replica on ${port} to pass the healthcheck`,
      async () => ((await run(process.execPath, args, { timeoutMs: 10_000 })).code === 0 ? true : undefined),
      { timeoutMs: 30_000, detail: () => `${output(child)}\n${output(redis)}` },
    );
  }
  const [first, second] = replicas;
  assert.ok(first && second);
  const pushed = await request(`http://127.0.0.1:${first.port}/metrics/job/compose`, {
    method: "PUT",
    body: "compose_replicas_test 2\n",
  });
  assert.equal(pushed.status, 200, pushed.body);
  await waitFor(
    "the push to show on the other replica",
    async () =>
      /^compose_replicas_test\{instance="",job="compose"\} 2$/m.test(
        (await request(`http://127.0.0.1:${second.port}/metrics`)).body,
      )
        ? true
        : undefined,
    { timeoutMs: 10_000 },
  );
  for (const { child } of replicas) {
    const started = Date.now();
    assert.equal(await servers.stop(child), 0, output(child));
    assert.ok(Date.now() - started < 10_000, "within the compose file's stop_grace_period");
  }
});
