#!/usr/bin/env node
// `toolmgr sync` of 13 tools into an empty store, from an OCI mirror (Debian's docker-registry, TOOLMGR_MIRRORS with
// TOOLMGR_OFFLINE=1) vs from the fake code host (web origin redirecting to storage, as github.com does), same machine,
// one run, runs alternated so load swings hit both alike. Every server binds 127.0.0.1.
// Needs `npm run build -w packages/toolmgr` and /usr/bin/docker-registry. Run: node bench/toolmgr/mirror-bench.mjs
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(root, "packages", "toolmgr");
const bin = join(pkg, "bin", "toolmgr.js");
const { FakeCodeHost } = await import(join(pkg, "dist", "test", "support", "fake-code-host.js"));
const { startDockerRegistry } = await import(join(pkg, "dist", "test", "support", "docker-registry.js"));
const runs = Number(process.env.RUNS ?? 10);
const size = Number(process.env.SIZE_MB ?? 4);

const host = await FakeCodeHost.start();
const registry = await startDockerRegistry();
const work = await mkdtemp(join(tmpdir(), "tm-mirror-bench-"));
try {
  // 13 tools, each a raw executable padded with incompressible bytes to SIZE_MB (a shell script that ignores them).
  const names = Array.from({ length: 13 }, (_, i) => `tool${i}`);
  for (const n of names) {
    host.addRepo(`bench/${n}`);
    const data = Buffer.concat([
      Buffer.from(`#!/bin/sh\necho "${n} 1.0.0"\nexit 0\n`),
      randomBytes(size * 1_000_000),
    ]);
    host.addRelease(`bench/${n}`, { tag: "v1.0.0", assets: [{ name: `${n}-1.0.0-linux`, data }] });
  }
  await writeFile(
    join(work, "toolmgr.toml"),
    names
      .map(
        (n) =>
          `[tools.${n}]\nversion = "1"\n[tools.${n}.source]\ntype = "github_release"\nrepo = "bench/${n}"\nasset = "${n}-{version}-{os}"\nbin = ["${n}"]\nplatforms = ["linux/amd64"]\n`,
      )
      .join("\n"),
  );
  const env = { ...process.env, CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: join(work, "home") };
  await run(process.execPath, [bin, "lock"], { cwd: work, env });
  const mirror = `oci://${registry.host}/bench/toolmgr`;
  await run(process.execPath, [bin, "mirror", "push", mirror], { cwd: work, env });

  const variants = {
    "fake code host": { ...env },
    "OCI mirror (docker-registry)": {
      ...env,
      TOOLMGR_MIRRORS: mirror,
      TOOLMGR_OFFLINE: "1",
      CODEHOST_API_URL: "http://127.0.0.1:1",
    },
  };
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, venv] of Object.entries(variants)) {
      const home = join(work, `h-${i}-${name.length}`);
      await mkdir(home);
      const start = process.hrtime.bigint();
      await run(process.execPath, [bin, "sync", "--quiet"], {
        cwd: work,
        env: { ...venv, TOOLMGR_HOME: home },
      });
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      await rm(home, { recursive: true, force: true });
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(times["fake code host"]);
  console.log(
    `sync of 13 tools x ${size} MB into an empty store, ${runs} runs each, alternated; load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log("| source | median [ms] | min [ms] | ratio to the code host |\n|:---|---:|---:|---:|");
  for (const [name, xs] of Object.entries(times)) {
    console.log(
      `| ${name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${(median(xs) / base).toFixed(2)} |`,
    );
  }
} finally {
  await host.close();
  await registry.stop();
  await rm(work, { recursive: true, force: true });
}
