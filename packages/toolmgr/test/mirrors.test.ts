import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject, type Project } from "./support/lock-harness.js";
import { OciBlobServer } from "./support/oci-blob-server.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;
let registry: OciBlobServer;
let open: OciBlobServer;

before(async () => {
  host = await FakeCodeHost.start();
  registry = await OciBlobServer.start({ user: "ci", password: "s3cret" });
  open = await OciBlobServer.start();
  for (const name of ["alpha", "beta"]) {
    host.addRepo(`acme/${name}`);
    const assets = await Promise.all(
      ["linux-amd64", "darwin-arm64"].map(async (p) => ({
        name: `${name}-1.0.0-${p}.tar.gz`,
        data: await buildArtifact("tar.gz", { name, version: `1.0.0 ${p}` }),
      })),
    );
    host.addRelease(`acme/${name}`, { tag: "v1.0.0", assets });
  }
});

after(async () => {
  await Promise.all([host.close(), registry.close(), open.close()]);
});

async function lockedProject(): Promise<Project> {
  const p = await makeProject(
    host,
    localTool("alpha", { version: "1", repo: "acme/alpha" }) +
      localTool("beta", { version: "1", repo: "acme/beta" }),
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  return p;
}

async function dockerConfig(server: OciBlobServer, user: string, password: string): Promise<string> {
  const dir = await tempDir("toolmgr-docker-");
  const auth = Buffer.from(`${user}:${password}`).toString("base64");
  await writeFile(join(dir, "config.json"), JSON.stringify({ auths: { [server.host]: { auth } } }));
  return dir;
}

/** Every locked digest of a project. */
async function digests(p: Project): Promise<string[]> {
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  return lock.tools.flatMap((t) => t.artifacts.map((a) => a.sha256));
}

test("mirror push uploads every locked artifact (all platforms) with the bearer token flow, and skips what is there", async () => {
  const p = await lockedProject();
  const dockerDir = await dockerConfig(registry, "ci", "s3cret");
  const ref = `oci://${registry.host}/team/toolmgr`;
  const r = await p.run(["mirror", "push", ref], { DOCKER_CONFIG: dockerDir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /: 2 pushed, 0 already there\n$/);
  for (const d of await digests(p)) assert.ok(registry.blobs.has(d), `blob ${d}`);
  const seen = registry.requests.length;
  const again = await p.run(["mirror", "push", ref], { DOCKER_CONFIG: dockerDir });
  assert.match(again.stdout, /: 0 pushed, 2 already there\n$/);
  assert.deepEqual(
    registry.requests.slice(seen).filter((q) => q.includes("/blobs/uploads/")),
    [],
    "HEAD first, nothing uploaded again",
  );
  const [tagged] = [...registry.manifests];
  assert.match(tagged?.[0] ?? "", /^team\/toolmgr:lock-[0-9a-f]{16}$/);
  assert.deepEqual(
    tagged?.[1].layers.map((l) => l.digest.slice(7)).sort(),
    (await digests(p)).sort(),
    "a tagged manifest references every artifact, so garbage collection keeps them",
  );
});

test("mirror push with wrong or no credentials fails naming docker login and TOOLMGR_MIRROR_TOKEN; a bad reference is a usage error", async () => {
  const p = await lockedProject();
  const fresh = await OciBlobServer.start({ user: "ci", password: "s3cret" });
  after(() => fresh.close());
  const dockerDir = await dockerConfig(fresh, "ci", "wrong");
  const ref = `oci://${fresh.host}/team/other`;
  const wrong = await p.run(["mirror", "push", ref], { DOCKER_CONFIG: dockerDir });
  assert.equal(wrong.code, 1);
  assert.match(
    wrong.stderr,
    /token service .* refused \(HTTP 401\); log in with `docker login 127\.0\.0\.1:\d+` or set TOOLMGR_MIRROR_TOKEN/,
  );
  const none = await p.run(["mirror", "push", ref], { DOCKER_CONFIG: join(p.home, "nothing") });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /the registry's token service .* refused|wants credentials/);
  assert.equal(fresh.blobs.size, 0);
  const bad = await p.run(["mirror", "push", "oci://127.0.0.1/Upper Case"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /is not an OCI repository; write oci:\/\/host\[:port\]\/repository/);
  const usage = await p.run(["mirror", "pull", ref]);
  assert.equal(usage.code, 2);
});

test("sync from an OCI mirror in an empty store, offline: the code host is never asked", async () => {
  const p = await lockedProject();
  for (const d of await digests(p)) open.blobs.set(d, registry.blobs.get(d) ?? Buffer.alloc(0));
  const fresh = await tempDir("toolmgr-empty-home-");
  const before = host.count("web:") + host.count("storage:");
  const r = await p.run(["sync"], {
    TOOLMGR_HOME: fresh,
    TOOLMGR_MIRRORS: `oci://${open.host}/team/toolmgr`,
    TOOLMGR_OFFLINE: "1",
    CODEHOST_API_URL: "http://127.0.0.1:1",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /alpha +installed 1\.0\.0\nbeta +installed 1\.0\.0/);
  assert.equal(host.count("web:") + host.count("storage:"), before);
});

test("a mirror serving wrong bytes is refused with the expected digest and the next source is tried; offline, nothing serves it", async () => {
  const p = await lockedProject();
  const [first] = await digests(p);
  const other = await OciBlobServer.start();
  try {
    for (const d of await digests(p)) other.blobs.set(d, registry.blobs.get(d) ?? Buffer.alloc(0));
    other.tamper(first ?? "");
    const mirrors = `oci://${other.host}/team/toolmgr`;
    const r = await p.run(["sync"], {
      TOOLMGR_HOME: await tempDir("toolmgr-h-"),
      TOOLMGR_MIRRORS: mirrors,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `mirror oci://${other.host}/team/toolmgr refused for "alpha": it served other bytes \\(expected sha256 ${first}\\); trying the next source`,
      ),
    );
    const offline = await p.run(["sync"], {
      TOOLMGR_HOME: await tempDir("toolmgr-h-"),
      TOOLMGR_MIRRORS: mirrors,
      TOOLMGR_OFFLINE: "1",
    });
    assert.equal(offline.code, 1);
    assert.match(
      offline.stderr,
      /Cannot download "alpha" 1\.0\.0 offline \(TOOLMGR_OFFLINE=1\): it is not in the store's cache and no mirror served it; tried oci:/,
    );
  } finally {
    await other.close();
  }
});

test("URL-prefix mirrors from config.toml; TOOLMGR_MIRRORS wins over the file; entries are tried in order", async () => {
  const p = await lockedProject();
  const lock = parseLockfile(await readFile(join(p.dir, "toolmgr.lock"), "utf8"));
  const web = new URL(lock.tools[0]?.artifacts[0]?.url ?? "").origin;
  for (const t of lock.tools)
    for (const a of t.artifacts)
      open.files.set(new URL(a.url).pathname.slice(1), registry.blobs.get(a.sha256) ?? Buffer.alloc(0));
  const config = await tempDir("toolmgr-config-");
  await mkdir(join(config, "toolmgr"));
  await writeFile(
    join(config, "toolmgr", "config.toml"),
    `mirrors = ["${web}/=http://${open.host}/missing/", "${web}/=http://${open.host}/files/"]\n`,
  );
  const before = host.count("web:");
  const seen = open.requests.length;
  const r = await p.run(["sync"], {
    TOOLMGR_HOME: await tempDir("toolmgr-h-"),
    XDG_CONFIG_HOME: config,
    TOOLMGR_OFFLINE: "1",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(host.count("web:"), before);
  assert.ok(
    open.requests.slice(seen).some((q) => q.startsWith("GET /missing/")),
    "the first entry was tried first",
  );
  const envWins = await p.run(["sync"], {
    TOOLMGR_HOME: await tempDir("toolmgr-h-"),
    XDG_CONFIG_HOME: config,
    TOOLMGR_MIRRORS: `${web}/=http://${open.host}/missing/`,
    TOOLMGR_OFFLINE: "1",
  });
  assert.equal(envWins.code, 1, "the file's working mirror is not used when the variable is set");
  await writeFile(join(config, "toolmgr", "config.toml"), `mirrors = ["ftp://x"]\n`);
  const bad = await p.run(["sync"], {
    TOOLMGR_HOME: await tempDir("toolmgr-h-"),
    XDG_CONFIG_HOME: config,
  });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /config\.toml: mirrors: "ftp:\/\/x" is not a mirror/);
  const badEnv = await p.run(["sync"], {
    TOOLMGR_HOME: await tempDir("toolmgr-h-"),
    TOOLMGR_MIRRORS: "nonsense",
  });
  assert.equal(badEnv.code, 2);
  assert.match(badEnv.stderr, /TOOLMGR_MIRRORS: "nonsense" is not a mirror/);
});

test("a channel build pin warns once at lock; when upstream deleted it, sync names tool, commit, deletion and the fixes", async () => {
  host.addRepo("acme/night");
  const commit = host.setTag("acme/night", "nightly", { commit: "a build that will vanish" });
  host.addRelease("acme/night", {
    tag: `nightly-${commit}`,
    prerelease: true,
    assets: [
      {
        name: "night-nightly-linux-amd64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "night", version: "nightly" }),
      },
    ],
  });
  const p = await makeProject(
    host,
    localTool("night", { version: "nightly", repo: "acme/night" }) +
      localTool("alpha", { version: "1", repo: "acme/alpha" }),
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.match(/warning/g)?.length, 1);
  assert.match(
    r.stderr,
    new RegExp(`night nightly-${commit} is a channel build: such builds may disappear upstream.*mirror`),
  );
  const release = await makeProject(host, localTool("alpha", { version: "1", repo: "acme/alpha" }));
  assert.equal((await release.run(["lock"])).stderr, "", "a release pin prints no warning");

  host.deleteRelease("acme/night", `nightly-${commit}`);
  const s = await p.run(["sync"], { TOOLMGR_HOME: await tempDir("toolmgr-h-") });
  assert.equal(s.code, 1);
  const message = s.stderr.replace(/\S*:\/\/\S*/g, "<url>");
  assert.match(
    message,
    new RegExp(
      `"night" nightly-${commit}: the build of commit ${commit} is no longer there, it was deleted upstream`,
    ),
  );
  assert.match(message, /Pin a release .* or fetch it from a mirror/);
  assert.doesNotMatch(s.stderr, /HTTP 404/);
});

test("a mirror that wants credentials for pulls gets them from the Docker config (token flow); without them it is skipped, named", async () => {
  const p = await lockedProject();
  const locked = await OciBlobServer.start({ user: "reader", password: "pw" }, { authPulls: true });
  try {
    for (const d of await digests(p)) locked.blobs.set(d, registry.blobs.get(d) ?? Buffer.alloc(0));
    const env = { TOOLMGR_MIRRORS: `oci://${locked.host}/team/toolmgr`, TOOLMGR_OFFLINE: "1" };
    const ok = await p.run(["sync"], {
      ...env,
      TOOLMGR_HOME: await tempDir("toolmgr-h-"),
      DOCKER_CONFIG: await dockerConfig(locked, "reader", "pw"),
    });
    assert.equal(ok.code, 0, ok.stderr);
    const none = await p.run(["sync"], {
      ...env,
      TOOLMGR_HOME: await tempDir("toolmgr-h-"),
      DOCKER_CONFIG: join(p.home, "no-docker-config"),
    });
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /warning: mirror oci:\S+ refused for "alpha": .*token service .* refused \(HTTP 401\); log in with `docker login/,
    );
  } finally {
    await locked.close();
  }
});
