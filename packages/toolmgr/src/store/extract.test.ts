import assert from "node:assert/strict";
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as tar from "tar";
import { type TarEntry, writeTar } from "../../test/support/tar-writer.js";
import { tempDir } from "../../test/support/temp-dir.js";
import { writeZip } from "../../test/support/zip-writer.js";
import { archiveKind } from "../archive-kind.js";
import { UnsafeArchiveError } from "../errors.js";
import { extractArchive } from "./extract.js";

/** A source tree `wrapper/{bin/tool (0750), doc.txt (0600)}` plus a top-level `TOP` file, built by node-tar. */
async function tarball(options: { gzip: boolean }): Promise<{ file: string; work: string }> {
  const work = await tempDir("toolmgr-extract-");
  const src = join(work, "src");
  await mkdir(join(src, "wrapper", "bin"), { recursive: true });
  await writeFile(join(src, "wrapper", "bin", "tool"), "#!/bin/sh\necho tool\n");
  await chmod(join(src, "wrapper", "bin", "tool"), 0o750);
  await writeFile(join(src, "wrapper", "doc.txt"), "docs\n");
  await chmod(join(src, "wrapper", "doc.txt"), 0o600);
  await writeFile(join(src, "TOP"), "top\n");
  const file = join(work, options.gzip ? "a.tar.gz" : "a.tar");
  await tar.c({ gzip: options.gzip, cwd: src, file, portable: true }, ["wrapper", "TOP"]);
  return { file, work };
}

async function mode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

test("archiveKind() recognises every supported format and treats anything else as a raw executable", () => {
  const cases: [string, string][] = [
    ["https://x/forge_1.0_linux_amd64.tar.gz", "tar.gz"],
    ["https://x/a.tgz?token=1", "tar.gz"],
    ["https://x/solana-release.tar.bz2", "tar.bz2"],
    ["https://x/a.tbz2", "tar.bz2"],
    ["https://x/a.tar.xz", "tar.xz"],
    ["https://x/a.txz", "tar.xz"],
    ["https://x/a.tar", "tar"],
    ["https://x/a.ZIP", "zip"],
    ["https://x/solc-static-linux", "raw"],
    ["https://x/vyper.0.4.0+commit.e9db8d9f.linux", "raw"],
  ];
  for (const [url, kind] of cases) assert.equal(archiveKind(url), kind, url);
});

for (const gzip of [true, false]) {
  test(`extractArchive() unpacks a node-tar ${gzip ? "tar.gz" : "tar"}, strips, keeps only the executable bit`, async () => {
    const { file, work } = await tarball({ gzip });
    const dest = join(work, "out");
    await mkdir(dest);
    await extractArchive(file, dest, {
      kind: gzip ? "tar.gz" : "tar",
      stripComponents: 1,
      rawName: "tool",
      label: "test",
    });
    assert.deepEqual((await readdir(dest)).sort(), ["bin", "doc.txt"], "TOP is stripped away entirely");
    assert.equal(await mode(join(dest, "bin", "tool")), 0o755);
    assert.equal(await mode(join(dest, "doc.txt")), 0o644);
    assert.equal(await readFile(join(dest, "bin", "tool"), "utf8"), "#!/bin/sh\necho tool\n");
  });
}

test("extractArchive() unpacks a tar.bz2 made by the bzip2 CLI", async () => {
  // Node has no bzip2 encoder: the fixture was made by the bzip2 program (test/fixtures/archives/make-fixtures.mjs).
  const work = await tempDir("toolmgr-extract-");
  const dest = join(work, "out");
  await mkdir(dest);
  await extractArchive(
    fileURLToPath(new URL("../../../test/fixtures/archives/wrapper-tool.tar.bz2", import.meta.url)),
    dest,
    {
      kind: "tar.bz2",
      stripComponents: 0,
      rawName: "tool",
      label: "test",
    },
  );
  assert.equal(await mode(join(dest, "wrapper", "bin", "tool")), 0o755);
});

test("extractArchive() unpacks a tar.xz made by the xz CLI", async () => {
  // Node has no xz encoder: the fixture was made by the xz program (test/fixtures/archives/make-fixtures.mjs).
  const work = await tempDir("toolmgr-extract-");
  const dest = join(work, "out");
  await mkdir(dest);
  await extractArchive(
    fileURLToPath(new URL("../../../test/fixtures/archives/wrapper-tool.tar.xz", import.meta.url)),
    dest,
    {
      kind: "tar.xz",
      stripComponents: 1,
      rawName: "tool",
      label: "test",
    },
  );
  assert.equal(await readFile(join(dest, "bin", "tool"), "utf8"), "#!/bin/sh\necho tool\n");
});

test("extractArchive() gives a zip without Unix modes plain files, and honours the executable bit when present", async () => {
  const work = await tempDir("toolmgr-extract-");
  const file = join(work, "a.zip");
  await writeFile(
    file,
    writeZip([
      { name: "pkg/" },
      { name: "pkg/tool.exe", content: "MZ" },
      { name: "pkg/tool", content: "#!/bin/sh\n", unixMode: 0o100700 },
    ]),
  );
  const dest = join(work, "out");
  await mkdir(dest);
  await extractArchive(file, dest, { kind: "zip", stripComponents: 1, rawName: "tool", label: "test" });
  assert.equal(await mode(join(dest, "tool.exe")), 0o644);
  assert.equal(await mode(join(dest, "tool")), 0o755);
});

test("extractArchive() installs a raw executable under its bin name, executable", async () => {
  const work = await tempDir("toolmgr-extract-");
  await writeFile(join(work, "download"), "#!/bin/sh\n");
  const dest = join(work, "out");
  await mkdir(dest);
  await extractArchive(join(work, "download"), dest, {
    kind: "raw",
    stripComponents: 0,
    rawName: "bin/solc",
    label: "test",
  });
  assert.equal(await mode(join(dest, "bin", "solc")), 0o755);
  await assert.rejects(
    extractArchive(join(work, "download"), dest, {
      kind: "raw",
      stripComponents: 0,
      rawName: "../x",
      label: "t",
    }),
    UnsafeArchiveError,
  );
});

test("extractArchive() refuses a tar entry with .. even when stripping would hide it", async () => {
  const work = await tempDir("toolmgr-extract-");
  const file = join(work, "a.tar");
  await writeFile(file, writeTar([{ name: "wrapper/../../escaped", content: "x" }], { gzip: false }));
  const dest = join(work, "out");
  await mkdir(dest);
  await assert.rejects(
    extractArchive(file, dest, { kind: "tar", stripComponents: 1, rawName: "x", label: '"t" 1.0.0' }),
    /Cannot unpack "t" 1\.0\.0: entry "wrapper\/\.\.\/\.\.\/escaped" escapes with "\.\."/,
  );
  await assert.rejects(stat(join(work, "escaped")));
});

test("extractArchive() unpacks a .tar.gz that is really a plain tar, and names a truncated one", async () => {
  const plain = await tarball({ gzip: false });
  const misnamed = join(plain.work, "really-plain.tar.gz");
  await writeFile(misnamed, await readFile(plain.file));
  const dest = join(plain.work, "out");
  await mkdir(dest);
  await extractArchive(misnamed, dest, {
    kind: "tar.gz",
    stripComponents: 1,
    rawName: "tool",
    label: "misnamed",
  });
  assert.equal(await readFile(join(dest, "bin", "tool"), "utf8"), "#!/bin/sh\necho tool\n");

  const gz = await tarball({ gzip: true });
  const truncated = join(gz.work, "truncated.tar.gz");
  const whole = await readFile(gz.file);
  await writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  const out = join(gz.work, "out");
  await mkdir(out);
  await assert.rejects(
    extractArchive(truncated, out, {
      kind: "tar.gz",
      stripComponents: 0,
      rawName: "tool",
      label: '"tool" 1.0.0 (https://x/truncated.tar.gz)',
    }),
    (error: unknown) =>
      error instanceof UnsafeArchiveError &&
      error.message.startsWith('Cannot unpack "tool" 1.0.0 (https://x/truncated.tar.gz): '),
  );
});

/** Unpacks a tar.gz of `entries` (written in Node) with `stripComponents`; returns the destination. */
async function unpackEntries(entries: readonly TarEntry[], stripComponents = 0): Promise<string> {
  const work = await tempDir("toolmgr-links-");
  const file = join(work, "a.tar.gz");
  await writeFile(file, writeTar(entries));
  const dest = join(work, "out");
  await mkdir(dest);
  await extractArchive(file, dest, { kind: "tar.gz", stripComponents, rawName: "x", label: '"t" 1.0.0' });
  return dest;
}

test("extractArchive() keeps symbolic and hard links whose targets stay inside the install (after stripping)", async () => {
  const dest = await unpackEntries(
    [
      { name: "pkg/libexec/tool", content: "#!/bin/sh\necho tool\n", mode: 0o755 },
      { name: "pkg/bin/tool", type: "symlink", linkname: "../libexec/tool" },
      { name: "pkg/lib/libfoo.so.1", content: "elf" },
      { name: "pkg/lib/libfoo.so", type: "symlink", linkname: "libfoo.so.1" },
      { name: "pkg/bin/alias", type: "hardlink", linkname: "pkg/libexec/tool" },
      { name: "pkg/bin/dangling-inside", type: "symlink", linkname: "later" },
    ],
    1,
  );
  assert.equal(await readlink(join(dest, "bin", "tool")), "../libexec/tool");
  assert.equal(await readFile(join(dest, "bin", "tool"), "utf8"), "#!/bin/sh\necho tool\n");
  assert.equal(await readFile(join(dest, "lib", "libfoo.so"), "utf8"), "elf");
  assert.equal((await stat(join(dest, "bin", "alias"))).ino, (await stat(join(dest, "libexec", "tool"))).ino);
  assert.equal((await lstat(join(dest, "bin", "dangling-inside"))).isSymbolicLink(), true);
});

for (const { label, entries, strip, message } of [
  {
    label: "an absolute symbolic link",
    entries: [{ name: "etc-passwd", type: "symlink", linkname: "/etc/passwd" }],
    strip: 0,
    message: /entry "etc-passwd" is a link to the absolute path "\/etc\/passwd"/,
  },
  {
    label: "a symbolic link that climbs out with ..",
    entries: [{ name: "bin/up", type: "symlink", linkname: "../../outside" }],
    strip: 0,
    message: /entry "bin\/up" is a link to "\.\.\/\.\.\/outside", outside the install/,
  },
  {
    label: "a link that climbs out once strip_components removed its wrapper",
    entries: [{ name: "pkg/up", type: "symlink", linkname: "../pkg/x" }],
    strip: 1,
    message: /entry "pkg\/up" is a link to "\.\.\/pkg\/x", outside the install/,
  },
  {
    label: "a link that points out through another link",
    entries: [
      { name: "d", type: "symlink", linkname: "." },
      { name: "e", type: "symlink", linkname: "d/../.." },
    ],
    strip: 0,
    message: /entry "e" is a link to "d\/\.\.\/\.\.", outside the install/,
  },
  {
    label: "a hard link to a file outside",
    entries: [{ name: "hard", type: "hardlink", linkname: "../../etc/passwd" }],
    strip: 0,
    message: /entry "hard" is a link to "\.\.\/\.\.\/etc\/passwd", outside the install/,
  },
  {
    label: "a file written through a link",
    entries: [
      { name: "lib", type: "symlink", linkname: "." },
      { name: "lib/evil", content: "x" },
    ],
    strip: 0,
    message: /entry "lib\/evil" is written through the link "lib"/,
  },
] as const) {
  test(`extractArchive() refuses ${label}, naming the entry`, async () => {
    await assert.rejects(
      unpackEntries(entries as readonly TarEntry[], strip),
      (error: unknown) => error instanceof UnsafeArchiveError && message.test(error.message),
    );
  });
}
