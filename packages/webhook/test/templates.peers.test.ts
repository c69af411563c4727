// Every hooks file of test/fixtures/templates/ (Go's template language: if/else, printf with each verb and its error
// forms, variables, define/template/block, with/range, comments and trim markers, builtins, constants, nil data, and
// templates that fail to parse or execute) loaded with -template by ours and by Debian's webhook 2.8.0 (Go 1.19):
// the same hooks, the same answer to each, or the same refusal, word for word.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK, PEER_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/templates/", import.meta.url));
const ENV = { DEPLOY_ENV: "prod", APP: "shop", QUOTE: `it's "q" <&>` };
const servers = new ServerGroup();

after(() => servers.stopAll());

interface Outcome {
  readonly loaded: readonly string[];
  readonly refusal: string | undefined;
  readonly answers: Readonly<Record<string, { status: number; body: string }>>;
}

/** Starts one server on the file, asks each loaded hook once, stops it. */
async function run(command: string, args: readonly string[], file: string): Promise<Outcome> {
  const port = await freePort();
  const server = await servers.start(
    command,
    [...args, "-template", "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    { ready: "serving hooks on", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...ENV } },
  );
  try {
    const lines = server
      .log()
      .split("\n")
      .map((l) => l.replace(/^\[webhook\] \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ""));
    const loaded = lines.filter((l) => l.startsWith("\tloaded: ")).map((l) => l.slice(9));
    const answers: Record<string, { status: number; body: string }> = {};
    for (const id of loaded) {
      const response = await fetch(`http://127.0.0.1:${port}/hooks/${encodeURIComponent(id)}`);
      answers[id] = { status: response.status, body: await response.text() };
    }
    return { loaded, refusal: lines.find((l) => l.startsWith("couldn't load")), answers };
  } finally {
    await servers.stop(server.child);
  }
}

test("every template hooks file loads and answers alike on both, or is refused with the same words", async () => {
  const files = (await readdir(FIXTURES)).filter((f) => f.endsWith(".yaml")).sort();
  assert.ok(files.length >= 30, `only ${files.length} fixture files`);
  let refused = 0;
  for (const name of files) {
    const file = join(FIXTURES, name);
    const [ours, peer] = await Promise.all([
      run(process.execPath, [OUR_WEBHOOK], file),
      run(PEER_WEBHOOK, [], file),
    ]);
    assert.deepEqual(ours, peer, name);
    if (peer.refusal !== undefined) refused++;
    else
      assert.ok(peer.loaded.length > 0 && Object.values(peer.answers).every((a) => a.status === 200), name);
  }
  assert.ok(refused >= 15, `only ${refused} refusals compared`);
});
