import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { open as openFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { parseLockfile } from "../src/lockfile.js";
import { buildArtifact } from "./support/archives.js";
import { DOCKER_REGISTRY, type DockerRegistry, startDockerRegistry } from "./support/docker-registry.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;
let registry: DockerRegistry;

before(async () => {
  host = await FakeCodeHost.start();
  registry = await startDockerRegistry();
  for (const name of ["alpha", "beta"]) {
    host.addRepo(`acme/${name}`);
    host.addRelease(`acme/${name}`, {
      tag: "v1.0.0",
      assets: [
        {
          name: `${name}-1.0.0-linux-amd64.tar.gz`,
          data: await buildArtifact("tar.gz", { name, version: "1.0.0" }),
        },
      ],
    });
  }
});

after(async () => {
  await Promise.all([host.close(), registry?.stop()]);
});

test("mirror push to Debian's docker-registry, sync from it into an empty store with the code host unreachable, a tampered blob refused", async () => {
  const p = await makeProject(
    host,
    localTool("alpha", { version: "1", repo: "acme/alpha" }) +
      localTool("beta", { version: "1", repo: "acme/beta" }),
  );
  assert.equal((await p.run(["lock"])).code, 0);
  const mirror = `oci://${registry.host}/team/toolmgr`;
  const pushed = await p.run(["mirror", "push", mirror]);
  assert.equal(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stdout, /: 2 pushed, 0 already there\n$/);
  const again = await p.run(["mirror", "push", mirror]);
  assert.match(again.stdout, /: 0 pushed, 2 already there\n$/);
  const tags = (await (await fetch(`http://${registry.host}/v2/team/toolmgr/tags/list`)).json()) as {
    tags: string[];
  };
  assert.match(tags.tags.join(","), /lock-[0-9a-f]{16}/);
  // The registry's garbage collector keeps blobs a tagged manifest references: the mirror survives it.
  await promisify(execFile)(DOCKER_REGISTRY, ["garbage-collect", registry.config], { timeout: 60_000 });

  const offline = { TOOLMGR_MIRRORS: mirror, TOOLMGR_OFFLINE: "1", CODEHOST_API_URL: "http://127.0.0.1:1" };
  const downloads = host.count("web:") + host.count("storage:");
  const r = await p.run(["sync"], {
    ...offline,
    TOOLMGR_HOME: await tempDir("toolmgr-empty-"),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /alpha +installed 1\.0\.0\nbeta +installed 1\.0\.0/);
  assert.equal(host.count("web:") + host.count("storage:"), downloads, "nothing from the code host");

  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  const digest = lock.tools.find((t) => t.name === "alpha")?.artifacts[0]?.sha256 ?? "";
  const data = join(registry.root, "docker/registry/v2/blobs/sha256", digest.slice(0, 2), digest, "data");
  const file = await openFile(data, "r+");
  await file.write(Buffer.from("XXXX"), 0, 4, 0); // same length: the registry's recorded size still matches
  await file.close();
  const tampered = await p.run(["sync"], {
    ...offline,
    TOOLMGR_HOME: await tempDir("toolmgr-empty-"),
  });
  assert.equal(tampered.code, 1);
  assert.match(
    tampered.stderr,
    new RegExp(`refused for "alpha": it served other bytes \\(expected sha256 ${digest}\\)`),
  );
  assert.match(tampered.stderr, /Cannot download "alpha" 1\.0\.0 offline/);
  const online = await p.run(["sync"], {
    TOOLMGR_MIRRORS: mirror,
    TOOLMGR_HOME: await tempDir("toolmgr-empty-"),
  });
  assert.equal(online.code, 0, "the next source, the locked URL, serves the right bytes");
});
