import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { archiveCase, readTree, treeLines } from "./support/archive-cases.js";
import { runArchiveCase } from "./support/archive-fuzz-run.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { Random } from "./support/fuzz-random.js";
import { tempDir } from "./support/temp-dir.js";

// The archive fuzzer's cases (test/support/archive-cases.ts) against the programs users unpack with: whenever `sync`
// installs an archive, GNU tar (`tar -x --strip-components`) or Info-ZIP's `unzip` (Debian's tar and unzip) unpacks
// the same bytes to the same tree: paths, bytes, executable bits, link targets (the declared executables made
// executable, as sync does). Tar cases are also sent as .tar.bz2 and .tar.xz, compressed by Debian's bzip2 and xz
// (Node has no encoder for either). Archives sync refuses are not compared: GNU tar skips or warns where sync refuses the whole archive.
// FUZZ_SEED, FUZZ_CASES and FUZZ_CASE change the run (README "Tests").

const execFileP = promisify(execFile);
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 120);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
});

after(async () => {
  await host?.close();
});

/** What GNU tar or unzip unpacks from `file`, with `strip` leading components dropped and `bins` made executable. */
async function peerTree(file: string, c: { kind: string; strip: number; bins: readonly string[] }) {
  const out = await tempDir("toolmgr-archfuzz-peer-");
  const options = { timeout: 20_000, maxBuffer: 1 << 20 };
  let top = out;
  if (c.kind === "zip") {
    // unzip has no --strip-components: the wrapper directories are the same for every entry of a generated zip.
    await execFileP("unzip", ["-q", file, "-d", out], options);
    top = join(out, ...Array.from({ length: c.strip }, (_, i) => `w${i}`));
  } else {
    await execFileP(
      "tar",
      ["-x", "--no-same-owner", `--strip-components=${c.strip}`, "-f", file, "-C", out],
      options,
    );
  }
  for (const bin of c.bins) await chmod(join(top, bin), 0o755).catch(() => {});
  return { tree: await readTree(top), top };
}

test(`sync installs what GNU tar and unzip unpack (seed ${SEED}, ${CASES} cases)`, {
  timeout: 60_000 + CASES * 2_000,
}, async () => {
  const problems: string[] = [];
  let compared = 0;
  const work = await tempDir("toolmgr-archfuzz-files-");
  for (let i = 0; i < CASES; i++) {
    if (ONLY !== undefined && i !== ONLY) continue;
    const seed = (SEED + i * 7919) >>> 0;
    const c = archiveCase(new Random(seed), seed);
    if (c.kind === "raw") continue;
    let ending: string | undefined;
    let data = c.data;
    if (c.plain !== undefined && i % 3 !== 2) {
      // Every third case a .tar.bz2, every third a .tar.xz: Node has an encoder for neither.
      const [program, extension] = i % 3 === 0 ? ["bzip2", "bz2"] : ["xz", "xz"];
      await writeFile(join(work, `${i}.tar`), c.plain);
      await execFileP(program, ["-k", join(work, `${i}.tar`)], { timeout: 20_000 });
      ending = `.tar.${extension}`;
      data = await readFile(join(work, `${i}.tar.${extension}`));
    }
    // Some compressed streams cut short: refused, whatever the tar inside held.
    const cut = ending !== undefined && i % 7 === 0;
    if (cut) data = data.subarray(0, (seed % (data.length - 1)) + 1);
    const sent = cut ? { ...c, hostile: [...c.hostile, "cut short"], mustRefuse: true } : c;
    const r = await runArchiveCase(host, sent, { repo: `p${i}`, seed, ...(ending ? { ending, data } : {}) });
    const label = `case ${i} (FUZZ_SEED=${SEED} FUZZ_CASE=${i}; ${ending ?? c.kind} ${c.description})`;
    problems.push(...r.problems.map((p) => `${label}:\n    ${p}`));
    // GNU tar's --strip-components counts a leading "./" as a component; sync does not (README "Archives").
    if (r.install === undefined || (c.strip > 0 && c.description.includes('"./'))) continue;
    // A backslash in a tar entry's name is a separator for sync, as on Windows; GNU tar on Linux keeps it in the name.
    if (c.kind !== "zip" && c.description.includes("\\\\")) continue;
    // A peer bug not copied: unzip 6.0 reads a name made on MS-DOS (no Unix modes) as code page 437 although the
    // entry's UTF-8 flag (APPNOTE 6.3 bit 11) says UTF-8, as yauzl reads it ("é" is unpacked as "+�").
    if (/(?:: |, )-:"[^"]*\P{ASCII}/u.test(c.description)) continue;
    const file = join(work, `${i}${ending ?? (c.kind === "zip" ? ".zip" : ".tar")}`);
    await mkdir(work, { recursive: true });
    await writeFile(file, data);
    let peer: string[];
    let top: string;
    try {
      const unpacked = await peerTree(file, { kind: c.kind, strip: c.strip, bins: c.bins });
      peer = treeLines(unpacked.tree);
      top = unpacked.top;
    } catch (error) {
      problems.push(`${label}:\n    sync installed it, the peer refused: ${(error as Error).message}`);
      continue;
    }
    compared++;
    const ours = treeLines(await readTree(r.install));
    if (ours.join("\n") !== peer.join("\n"))
      problems.push(`${label}:\n    ours ${ours.join("\n         ")}\n    peer ${peer.join("\n         ")}`);
    if (c.kind === "zip" || i % 2 !== 0) continue;
    // The same tree zipped by Debian's zip (Info-ZIP: UTF-8 names without the UTF-8 flag, links kept with -y, hard
    // links as copies): sync installs it alike.
    const zipped = join(work, `${i}-infozip.zip`);
    await execFileP("zip", ["-q", "-y", "-r", zipped, "."], { cwd: top, timeout: 20_000 });
    const z = { ...c, kind: "zip" as const, strip: 0, hostile: [], mustRefuse: false };
    const again = await runArchiveCase(host, z, { repo: `z${i}`, seed, data: await readFile(zipped) });
    problems.push(...again.problems.map((p) => `${label} (zipped by zip):\n    ${p}`));
    const fromZip = again.install === undefined ? [] : treeLines(await readTree(again.install));
    if (fromZip.join("\n") !== peer.join("\n"))
      problems.push(
        `${label} (zipped by zip):\n    ours ${fromZip.join("\n         ")}\n    peer ${peer.join("\n         ")}`,
      );
  }
  assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 6).join("\n\n")}`);
  if (ONLY === undefined) assert.ok(compared >= CASES / 4, `only ${compared} cases compared`);
});
