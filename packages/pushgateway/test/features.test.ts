import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import bcrypt from "bcryptjs";
import { decodeUpstreamPersistence } from "../src/store/disk/upstream-persistence.js";
import { startGateway, stopAll, track } from "./support/processes.js";

after(stopAll);

const BIN = fileURLToPath(new URL("../../bin/pushgateway.js", import.meta.url));

// Protobuf written by hand from client_model's field numbers, independent of the gateway's own schema.
const varint = (n: number) => {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
};
const field = (no: number, payload: Buffer) =>
  Buffer.concat([varint((no << 3) | 2), varint(payload.length), payload]);
const str = (no: number, s: string) => field(no, Buffer.from(s));
const double = (no: number, v: number) => {
  const b = Buffer.alloc(9);
  b[0] = (no << 3) | 1;
  b.writeDoubleLE(v, 1);
  return b;
};

test("a delimited protobuf push (what client_golang sends), gzip-compressed", async () => {
  const { child, base } = await startGateway();
  try {
    const family = Buffer.concat([
      str(1, "pb_metric"),
      str(2, "From protobuf."),
      Buffer.from([3 << 3, 1]), // type GAUGE
      field(
        4,
        Buffer.concat([field(1, Buffer.concat([str(1, "a"), str(2, "b")])), field(2, double(1, 2.5))]),
      ),
    ]);
    const body = gzipSync(Buffer.concat([varint(family.length), family]));
    const r = await fetch(`${base}/metrics/job/pb`, {
      method: "PUT",
      body,
      headers: {
        "Content-Type":
          "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
        "Content-Encoding": "gzip",
      },
    });
    assert.equal(r.status, 200);
    const text = await (await fetch(`${base}/metrics`)).text();
    assert.match(
      text,
      /# HELP pb_metric From protobuf\.\n# TYPE pb_metric gauge\npb_metric\{a="b",instance="",job="pb"\} 2\.5\n/,
    );
  } finally {
    child.kill("SIGTERM");
  }
});

test("admin wipe, the JSON API and the route prefix", async () => {
  const { child, base } = await startGateway(["--web.enable-admin-api", "--web.route-prefix=/pg"]);
  try {
    assert.equal((await fetch(`${base}/metrics/job/x`, { method: "PUT", body: "m 1\n" })).status, 404);
    assert.equal((await fetch(`${base}/pg/metrics/job/x`, { method: "PUT", body: "m 1\n" })).status, 200);
    const api = (await (await fetch(`${base}/pg/api/v1/metrics`)).json()) as {
      data: { labels: Record<string, string>; m: { metrics: { value: string }[] } }[];
    };
    assert.deepEqual(api.data[0]?.labels, { job: "x" });
    assert.equal(api.data[0]?.m.metrics[0]?.value, "1");
    const status = (await (await fetch(`${base}/pg/api/v1/status`)).json()) as {
      data: { flags: Record<string, string> };
    };
    assert.equal(status.data.flags["persistence.interval"], "5m0s");
    assert.equal(status.data.flags["web.enable-admin-api"], "true");
    assert.equal(status.data.flags["web.route-prefix"], "/pg");
    assert.equal((await fetch(`${base}/pg/api/v1/admin/wipe`, { method: "PUT" })).status, 202);
    assert.doesNotMatch(await (await fetch(`${base}/pg/metrics`)).text(), /job="x"/);
  } finally {
    child.kill("SIGTERM");
  }
});

test("basic auth from --web.config.file with a bcrypt hash, as exporter-toolkit", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-auth-"));
  const config = join(dir, "web.yml");
  await writeFile(config, `basic_auth_users:\n  alice: '${bcrypt.hashSync("s3cret", 4)}'\n`);
  const { child, base } = await startGateway([`--web.config.file=${config}`]);
  try {
    assert.equal((await fetch(`${base}/metrics`)).status, 401);
    const wrong = `Basic ${Buffer.from("alice:nope").toString("base64")}`;
    assert.equal((await fetch(`${base}/metrics`, { headers: { Authorization: wrong } })).status, 401);
    const right = `Basic ${Buffer.from("alice:s3cret").toString("base64")}`;
    assert.equal((await fetch(`${base}/metrics`, { headers: { Authorization: right } })).status, 200);
  } finally {
    child.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  }
});

test("--web.config.file: a sha256:<hex> hash authenticates; a hash in neither form stops the start", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-auth-"));
  const config = join(dir, "web.yml");
  try {
    const hex = createHash("sha256").update("s3cret").digest("hex");
    await writeFile(config, `basic_auth_users:\n  bob: 'sha256:${hex}'\n`);
    const { child, base } = await startGateway([`--web.config.file=${config}`]);
    try {
      const wrong = `Basic ${Buffer.from("bob:nope").toString("base64")}`;
      assert.equal((await fetch(`${base}/metrics`, { headers: { Authorization: wrong } })).status, 401);
      const right = `Basic ${Buffer.from("bob:s3cret").toString("base64")}`;
      assert.equal((await fetch(`${base}/metrics`, { headers: { Authorization: right } })).status, 200);
    } finally {
      child.kill("SIGTERM");
    }
    await writeFile(config, "basic_auth_users:\n  bob: plaintext\n");
    const bad = spawn(
      process.execPath,
      [BIN, "--web.listen-address=127.0.0.1:0", `--web.config.file=${config}`],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    track(bad);
    let log = "";
    bad.stderr.on("data", (d: Buffer) => {
      log += d.toString();
    });
    assert.equal(await new Promise((r) => bad.once("exit", r)), 1);
    assert.match(
      log,
      /level=error msg="Cannot load web config: [^ ]+web\.yml: crypto\/bcrypt: hashedSecret too short to be a bcrypted password \(the password hash of user \\"bob\\"/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("persistence: written on shutdown, restored at start; a corrupt file stops the start", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-persist-"));
  const file = join(dir, "store.json");
  try {
    const first = await startGateway([`--persistence.file=${file}`]);
    await fetch(`${first.base}/metrics/job/kept/instance/a`, {
      method: "PUT",
      body: "# TYPE kept gauge\nkept 1.5\n",
    });
    const exited = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGTERM");
    await exited;
    // Upstream's format (a gob), so upstream can read it back.
    assert.deepEqual(
      (await decodeUpstreamPersistence(await readFile(file))).map((g) => g.labels),
      [{ instance: "a", job: "kept" }],
    );
    // Readable by the gateway's user only, as upstream's file (os.CreateTemp's 0600).
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const second = await startGateway([`--persistence.file=${file}`]);
    try {
      assert.match(
        await (await fetch(`${second.base}/metrics`)).text(),
        /^kept\{instance="a",job="kept"\} 1\.5$/m,
      );
    } finally {
      second.child.kill("SIGTERM");
    }
    await writeFile(file, "{not json");
    const bad = spawn(
      process.execPath,
      [BIN, "--web.listen-address=127.0.0.1:0", `--persistence.file=${file}`],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    track(bad);
    let log = "";
    bad.stderr.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const code = await new Promise((r) => bad.once("exit", r));
    assert.equal(code, 1);
    assert.match(log, /level=error/);
    assert.match(log, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
