// Every hooks file of test/fixtures/hooks-files, loaded by our server and by Debian's webhook 2.8.0: the same hook
// ids, or a refusal on both. Where the two could read a file differently, ours refuses it (the files named in
// REFUSED_BY_OURS_ONLY).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK as BIN, PEER_WEBHOOK as PEER } from "./support/binaries.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/hooks-files/", import.meta.url));

/** yaml.v2 honours explicit tags and reads only the first document; ours refuses both rather than guess. */
const REFUSED_BY_OURS_ONLY = new Set(["explicit-tags.yaml", "two-documents.yaml"]);

interface Load {
  readonly loaded: readonly string[];
  readonly refusal: string | undefined;
  readonly exit: number | null;
}

/** Starts a server on the file with -verbose, reads its load report, stops it (by its pid) once it serves or exits. */
function load(command: string, args: readonly string[], file: string, verbose: boolean): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      command,
      [...args, "-hooks", file, "-ip", "127.0.0.1", "-port", "0", ...(verbose ? ["-verbose"] : [])],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let log = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    const onData = (c: Buffer) => {
      log += c.toString();
      if (log.includes("serving hooks on")) child.kill("SIGTERM");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const lines = log
        .split("\n")
        .map((l) => l.replace(/^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ""));
      resolve({
        loaded: lines.filter((l) => l.startsWith("\tloaded: ")).map((l) => l.slice(9)),
        refusal: lines.find((l) => l.startsWith("couldn't load")),
        exit: log.includes("serving hooks on") ? null : code,
      });
    });
  });
}

test("every hooks file loads to the same ids on both, or is refused by ours", async () => {
  const files: string[] = [];
  for (const sub of ["upstream", "tricky"]) {
    for (const name of await readdir(join(FIXTURES, sub))) files.push(join(FIXTURES, sub, name));
  }
  assert.ok(files.length >= 40, `only ${files.length} fixture files`);
  for (const file of files) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const [ours, peer] = await Promise.all([
      load(process.execPath, [BIN], file, true),
      load(PEER, [], file, true),
    ]);
    if (REFUSED_BY_OURS_ONLY.has(name)) {
      assert.ok(
        peer.refusal === undefined && ours.refusal !== undefined,
        `${name}: ${JSON.stringify({ ours, peer })}`,
      );
      continue;
    }
    assert.deepEqual(ours.loaded, peer.loaded, name);
    assert.equal(
      ours.refusal === undefined,
      peer.refusal === undefined,
      `${name}: ${JSON.stringify({ ours, peer })}`,
    );
    // The same words, except for the line libyaml and the yaml package point at in a syntax error.
    const shape = (s?: string) => s?.replace(/line \d+: .*$/, "line N: …");
    assert.equal(shape(ours.refusal), shape(peer.refusal), name);
  }
});

test("without -verbose the refused pass-file example ends both with exit 1", async () => {
  const file = join(FIXTURES, "upstream", "docs-hook-examples-10.json");
  const [ours, peer] = await Promise.all([
    load(process.execPath, [BIN], file, false),
    load(PEER, [], file, false),
  ]);
  assert.equal(ours.exit, 1);
  assert.equal(peer.exit, 1);
});
