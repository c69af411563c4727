import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ArchiveCase } from "./archive-cases.js";
import type { FakeCodeHost } from "./fake-code-host.js";
import { probePath } from "./hostile-entries.js";
import { runMain } from "./run-main.js";
import { tempDir } from "./temp-dir.js";

// One archive case through the CLI (`main()`, as cli.ts runs it): the artifact published on the fake code host as
// the release of a repository of its own, `lock` and `sync` in a project whose store is deep inside one temp root
// (so `..` lands inside the root, where the snapshot sees it), and the properties every case must have.

/** Every path below `root` with what would change if it were written (type, mode, size, inode, mtime, link target). */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const s = await lstat(path).catch(() => undefined);
    if (s === undefined) continue;
    const link = s.isSymbolicLink() ? ` -> ${await readlink(path)}` : "";
    // A directory changes with what is written in it: that is seen where it is written.
    out.set(
      path,
      s.isDirectory() ? `dir ${s.ino}` : `${s.mode.toString(8)} ${s.size} ${s.ino} ${s.mtimeMs}${link}`,
    );
  }
  return out;
}

/** What a case did: `sync`'s answer, and the install (undefined when none was made). */
export interface ArchiveRun {
  readonly code: number;
  readonly stderr: string;
  readonly install: string | undefined;
  readonly problems: string[];
}

const EXT = { "tar.gz": ".tar.gz", tar: ".tar", zip: ".zip", raw: "" } as const;

/** Runs `lock` and `sync` of `c` (published as `acme/<repo>` on `host`) and checks the properties of any archive. */
export async function runArchiveCase(
  host: FakeCodeHost,
  c: ArchiveCase,
  options: { readonly repo: string; readonly seed: number; readonly ending?: string; readonly data?: Buffer },
): Promise<ArchiveRun> {
  const { repo, seed } = options;
  const root = await tempDir("toolmgr-archfuzz-");
  const project = join(root, "p");
  const home = join(root, "a", "b", "c", "d", "e", "f", "g", "h", "i", "store");
  await mkdir(project, { recursive: true });
  await mkdir(join(root, "outside"));
  await writeFile(join(root, "outside", "x"), "mine\n");
  const ending = options.ending ?? EXT[c.kind];
  host.addRepo(`acme/${repo}`);
  host.addRelease(`acme/${repo}`, {
    tag: "v1.0.0",
    assets: [{ name: `fz-1.0.0-linux-amd64${ending}`, data: options.data ?? c.data }],
  });
  await writeFile(
    join(project, "toolmgr.toml"),
    `platforms = ["linux/amd64"]\n[tools.fz]\nversion = "1"\n[tools.fz.source]\ntype = "github_release"\nrepo = "acme/${repo}"\nasset = "fz-{version}-{os}-{arch}${ending}"\nbin = ${JSON.stringify(c.bins)}\n${c.strip > 0 ? `strip_components = ${c.strip}\n` : ""}`,
  );
  const env = { PATH: "/usr/bin:/bin", CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, HOME: home };
  const run = (args: string[]) =>
    runMain(args, { cwd: project, env, now: () => new Date("2026-11-28T00:00:00Z") });
  const problems: string[] = [];
  const lock = await run(["lock"]);
  if (lock.code !== 0)
    return {
      code: lock.code,
      stderr: lock.stderr,
      install: undefined,
      problems: [`lock failed: ${lock.stderr}`],
    };
  const before = await snapshot(root);
  const sync = await run(["sync", "--quiet"]);
  const after = await snapshot(root);
  // Errors are words: an exit code of ours and one `toolmgr:` line, never a stack or a JavaScript error's name.
  if (![0, 1].includes(sync.code)) problems.push(`sync exit ${sync.code}`);
  if (sync.code !== 0 && !/^toolmgr: \S/.test(sync.stderr))
    problems.push(`a refusal without a toolmgr: message: ${sync.stderr}`);
  if (/^\s+at |\b(TypeError|RangeError|ReferenceError)\b|undefined|\[object /m.test(sync.stderr))
    problems.push(`not words: ${sync.stderr}`);
  const tools = join(home, "tools", "fz");
  const installs = (await readdir(tools).catch(() => [] as string[])).map((name) => join(tools, name));
  const install = sync.code === 0 ? installs[0] : undefined;
  // Nothing written outside the install, but for what the store keeps (the cache, the shims, the project's record);
  // after a refusal nothing at all but the verified cache.
  const allowed = (path: string) =>
    (install !== undefined && (path === install || path.startsWith(`${install}/`))) ||
    path.startsWith(`${join(home, "cache")}`) ||
    // The store's layout: the directory installs of the tool go in (made before unpacking), empty after a refusal.
    [join(home, "tools"), tools].includes(path) ||
    (sync.code === 0 &&
      [join(home, "shims"), join(home, "projects"), tools].some(
        (d) => path === d || path.startsWith(`${d}/`),
      ));
  for (const [path, was] of after)
    if (before.get(path) !== was && !allowed(path))
      problems.push(`${before.has(path) ? "changed" : "written"}: ${path}`);
  for (const path of before.keys()) if (!after.has(path) && !allowed(path)) problems.push(`removed: ${path}`);
  if (sync.code !== 0 && installs.length > 0) problems.push(`a refused archive left ${installs.join(", ")}`);
  for (const probe of [probePath(seed), `/tmp/escaped-${seed}`, `/escaped-${seed}`])
    if (existsSync(probe)) problems.push(`an archive wrote ${probe}`);
  if (c.mustRefuse && sync.code === 0) problems.push("a hostile archive was installed");
  if (!c.mustRefuse && c.hostile.length === 0 && sync.code !== 0)
    problems.push(`a benign archive was refused: ${sync.stderr}`);
  return { code: sync.code, stderr: sync.stderr, install, problems };
}
