// -template through the CLI and HTTP: a YAML hooks file using Go's template language (if/else if, printf,
// variables, define/template/block, range/else, with, comments, trim markers, builtins) is served with each
// template's output in the answers (outputs as Go 1.19 gives them; test/templates.peers.test.ts compares with
// Debian's webhook live); a reload to a template that fails to parse or execute keeps the previous hooks and logs
// Go's error.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { waitFor } from "./support/hooks-server.js";
import { ServerGroup } from "./support/server-group.js";

const servers = new ServerGroup();
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-templates-"));
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

const HOOKS = `{{- /* hooks for {{ getenv "DEPLOY_ENV" }} */ -}}
{{ define "cmd" }}/bin/{{ if eq (getenv "DEPLOY_ENV") "prod" }}true{{ else }}false{{ end }}{{ end -}}
{{ $name := or (getenv "APP") "app" -}}
- id: {{ $name }}-deploy
  execute-command: {{ template "cmd" }}
  response-message: |
    env={{ if eq (getenv "DEPLOY_ENV") "dev" }}dev{{ else if eq (getenv "DEPLOY_ENV") "prod" }}prod{{ else }}other{{ end }}
    printf={{ printf "%s-%05.1f-%x-%q-%v" $name 3.14159 255 "a\\"b" 1e6 }}
    len={{ len $name }} index={{ index $name 0 }} slice={{ slice $name 1 }}
    with={{ with getenv "NOPE" }}set{{ else }}unset{{ end }} range={{ range . }}x{{ else }}empty{{ end }}
    cmp={{ lt 1 2 }}/{{ ne "a" "b" }}/{{ and 1 0 }}/{{ not "" }} field={{ .Field }}
    esc={{ html "<&>" }} {{ urlquery "a b&c" }} {{ js "it's" }}
    block={{ block "b" $name }}[{{ . }}]{{ end }}
`;

test("a hooks file in Go's template language is served with Go's output; a failing reload keeps the hooks", async () => {
  const file = join(dir, "hooks.yaml");
  await writeFile(file, HOOKS);
  const port = await freePort();
  const server = await servers.start(
    process.execPath,
    [OUR_WEBHOOK, "-template", "-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    { ready: "serving hooks on", env: { ...process.env, DEPLOY_ENV: "prod", APP: "shop" } },
  );
  const base = `http://127.0.0.1:${port}/hooks`;
  const expected = [
    "env=prod",
    `printf=shop-003.1-ff-"a\\"b"-1e+06`,
    "len=4 index=115 slice=hop",
    "with=unset range=empty",
    "cmp=true/true/0/true field=<no value>",
    "esc=&lt;&amp;&gt; a+b%26c it\\'s",
    "block=[shop]",
    "",
  ].join("\n");
  const first = await fetch(`${base}/shop-deploy`);
  assert.equal(first.status, 200);
  assert.equal(await first.text(), expected);

  // A template that parses but fails while executing: the file's previous hooks stay.
  await writeFile(file, `- id: {{ index "ab" 5 }}\n  execute-command: /bin/true\n`);
  server.child.kill("SIGHUP");
  await waitFor("the reload error", async () => server.log().includes("error calling index"), 5000);
  assert.match(
    server.log(),
    /couldn't load hooks from file! template: hooks:1:9: executing "hooks" at <index "ab" 5>: error calling index: index out of range: 5/,
  );
  assert.equal(await (await fetch(`${base}/shop-deploy`)).text(), expected);

  // One that does not parse: the same.
  await writeFile(file, `- id: {{ if 1 }}x\n  execute-command: /bin/true\n`);
  server.child.kill("SIGHUP");
  await waitFor("the parse error", async () => server.log().includes("unexpected EOF"), 5000);
  assert.match(server.log(), /couldn't load hooks from file! template: hooks:3: unexpected EOF/);
  assert.equal((await fetch(`${base}/shop-deploy`)).status, 200);

  // And a good one replaces them.
  await writeFile(
    file,
    `{{ range $i, $e := . }}{{ else }}- id: {{ printf "%s-%d" "v" 2 }}{{ end }}\n  execute-command: /bin/true\n  response-message: ok\n`,
  );
  server.child.kill("SIGHUP");
  await waitFor("the reloaded hook", async () => (await fetch(`${base}/v-2`)).status === 200, 5000);
  assert.equal((await fetch(`${base}/shop-deploy`)).status, 404);
});
