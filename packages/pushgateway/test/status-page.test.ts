// The status page and its static files through the real server: route prefix, external URL, escaping of pushed data.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);

/** The page's `href`/`src` of its stylesheet and script. */
function assetLinks(html: string): string[] {
  return [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">|<script src="([^"]+)"/g)].map((m) =>
    (m[1] ?? m[2] ?? "").replace(/&amp;/g, "&"),
  );
}

test("under --web.route-prefix the page, its static files and its delete paths all live below the prefix", async () => {
  const { base } = await startGateway(["--web.route-prefix=/pg"]);
  const put = await fetch(`${base}/pg/metrics/job/j%20k/instance/i`, { method: "PUT", body: "m 1\n" });
  assert.equal(put.status, 200);
  const html = await (await fetch(`${base}/pg/`)).text();
  const links = assetLinks(html);
  assert.equal(links.length, 2);
  for (const link of links) {
    assert.match(link, /^\/pg\/static\/pushgateway\.(css|js)\?v=[0-9a-f]{16}$/);
    const response = await fetch(`${base}${link}`);
    assert.equal(response.status, 200, link);
    assert.match(
      response.headers.get("content-type") ?? "",
      link.includes(".css") ? /^text\/css/ : /^text\/javascript/,
    );
    assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.ok(response.headers.get("etag"));
  }
  assert.equal((await fetch(`${base}/static/pushgateway.js`)).status, 404, "nothing outside the prefix");
  const url = /class="delete danger" data-url="([^"]+)"/.exec(html)?.[1] ?? "";
  assert.equal(url, "/pg/metrics/job@base64/aiBr=/instance@base64/aQ=");
  // The page's delete path works as it stands.
  assert.equal((await fetch(`${base}${url}`, { method: "DELETE" })).status, 202);
  assert.doesNotMatch(await (await fetch(`${base}/pg/metrics`)).text(), /^m\{/m);
});

test("with --web.external-url behind a proxy that strips the path, links use the external path", async () => {
  const { base } = await startGateway([
    "--web.external-url=http://proxy.invalid/gw/",
    "--web.route-prefix=/",
  ]);
  const html = await (await fetch(`${base}/`)).text();
  for (const link of assetLinks(html)) assert.match(link, /^\/gw\/static\//);
  const [css] = assetLinks(html);
  assert.equal((await fetch(`${base}${(css ?? "").slice("/gw".length)}`)).status, 200);
});

test("pushed label values, HELP and sample labels reach the page only escaped", async () => {
  const { base } = await startGateway();
  const evil = "<script>alert(1)</script>";
  const put = await fetch(`${base}/metrics/job@base64/${Buffer.from(evil).toString("base64url")}`, {
    method: "PUT",
    body: `# HELP m ${evil}\nm{v="\\"><img src=x onerror=alert(2)>"} 1\n`,
  });
  assert.equal(put.status, 200);
  const response = await fetch(`${base}/`);
  assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  const html = await response.text();
  assert.doesNotMatch(html, /<script>alert|<img src=x/);
  assert.match(html, /job="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
  assert.match(
    html,
    /m\{instance=&quot;&quot;,job=&quot;&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;,v=&quot;\\&quot;&gt;&lt;img/,
  );
});
