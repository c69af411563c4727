import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { handleRequest } from "./routes.js";
import { assetPath } from "./static-assets.js";

test("static/ serves the script and stylesheet with their content types and nosniff", async () => {
  const { ctx, counted } = recordingContext();
  for (const [name, type, content] of [
    ["pushgateway.js", "text/javascript; charset=utf-8", /addEventListener/],
    ["pushgateway.css", "text/css; charset=utf-8", /\.group/],
  ] as const) {
    const response = await handleRequest(request("GET", `/static/${name}`), ctx);
    assert.equal(response.status, 200);
    assert.equal(response.headers["Content-Type"], type);
    assert.equal(response.headers["X-Content-Type-Options"], "nosniff");
    assert.match(bodyText(response.body), content);
  }
  assert.deepEqual(counted[0], ["static", "GET", 200]);
});

test("caching: a year for the versioned URL the page links, revalidation otherwise, 304 for a matching ETag", async () => {
  const { ctx } = recordingContext();
  const [path, query] = assetPath("pushgateway.js").split("?");
  const versioned = await handleRequest({ ...request("GET", `/${path}`), query }, ctx);
  assert.equal(versioned.headers["Cache-Control"], "public, max-age=31536000, immutable");
  const plain = await handleRequest(request("GET", `/${path}`), ctx);
  assert.equal(plain.headers["Cache-Control"], "no-cache");
  const stale = await handleRequest({ ...request("GET", `/${path}`), query: "v=0000" }, ctx);
  assert.equal(stale.headers["Cache-Control"], "no-cache", "an old version's URL is not cached for a year");
  const etag = plain.headers.ETag ?? "";
  assert.match(etag, /^"[0-9a-f]{16}"$/);
  const revalidated = await handleRequest(
    request("GET", `/${path}`, { headers: { "if-none-match": `W/${etag}` } }),
    ctx,
  );
  assert.equal(revalidated.status, 304);
  assert.equal(bodyText(revalidated.body), "");
  const changed = await handleRequest(
    request("GET", `/${path}`, { headers: { "if-none-match": '"other"' } }),
    ctx,
  );
  assert.equal(changed.status, 200);
});

test("anything else under static/ is 404 (no path escapes the directory)", async () => {
  const { ctx } = recordingContext();
  for (const path of [
    "/static/",
    "/static/missing.js",
    "/static/../package.json",
    "/static/x/pushgateway.js",
  ]) {
    const response = await handleRequest(request("GET", path), ctx);
    assert.equal(response.status, 404, path);
    assert.equal(bodyText(response.body), "404 page not found\n");
  }
  assert.equal((await handleRequest(request("PUT", "/static/pushgateway.js"), ctx)).status, 405);
});
