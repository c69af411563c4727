import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// An `http` source may use plain http:// for a loopback address (tests, local mirrors), as downloads may; nowhere
// else (nao1215/block e2e/atago/artifacts.atago.yaml serves its vendor host from its fake on loopback).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("an http source may use plain http:// on a loopback address, and only there", async () => {
  const web = new URL(host.browserUrl("acme/hello", "v1.2.3", "x")).origin;
  const toml = (origin: string) => `platforms = ["linux/amd64"]
[tools.hello]
version = "1.2"
[tools.hello.source]
type = "http"
repo = "acme/hello"
url = "${origin}/acme/hello/releases/download/v{version}/hello_{version}_{os}_{arch}.tar.gz"
bin = ["hello"]
`;
  const p = await blockProject(host, toml(web));
  const lock = await p.run("lock");
  assert.equal(lock.stdout, "hello  locked 1.2.3\nwrote toolmgr.lock\n", lock.stderr);
  assert.equal((await p.run("sync")).code, 0);
  assert.equal((await p.shim("hello")).stdout, "hello 1.2.3 \n");
  const remote = await blockProject(host, toml("http://downloads.example.com"));
  const refused = await remote.run("lock");
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /an http source must use https:\/\/ \(http:\/\/ only for a loopback address\)/,
  );
});
