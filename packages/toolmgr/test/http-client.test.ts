import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HttpError, RateLimitError } from "../src/errors.js";
import { createHttpClient } from "../src/http/client.js";
import { createCodeHost } from "../src/http/code-host.js";
import { FakeCodeHost } from "./support/fake-code-host.js";

let host: FakeCodeHost;
let assetApiUrl = "";

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/open");
  host.addRelease("acme/open", {
    tag: "v1.0.0",
    assets: [{ name: "open.tar.gz", data: Buffer.from("open") }],
  });
  host.addRepo("acme/secret", { private: true });
  host.addRelease("acme/secret", {
    tag: "v1.0.0",
    assets: [{ name: "secret.tar.gz", data: Buffer.from("secret bytes") }],
  });
  const release = await createCodeHost(client({ token: host.token })).release("acme/secret", "v1.0.0");
  assetApiUrl = release?.assets[0]?.apiUrl ?? "";
});

after(async () => {
  await host.close();
});

function client(
  options: { token?: string; sleep?: (ms: number) => Promise<void>; fetch?: typeof fetch } = {},
) {
  return createHttpClient({
    fetch: options.fetch ?? globalThis.fetch,
    apiBase: `${host.apiUrl}/`,
    token: options.token,
    sleep: options.sleep ?? (async () => {}),
  });
}

test("the token goes to the API origin and never along the redirect to storage", async () => {
  const leaksBefore = host.tokenLeaks.length;
  const response = await client({ token: host.token }).get(assetApiUrl, {
    accept: "application/octet-stream",
  });
  assert.equal(await response.text(), "secret bytes");
  assert.deepEqual(host.tokenLeaks.slice(leaksBefore), []);
  assert.ok(host.count("storage:/assets/") >= 1, "the bytes came from the storage origin");
});

test("a public browser download carries no token, even when one is set", async () => {
  const leaksBefore = host.tokenLeaks.length;
  const response = await client({ token: host.token }).get(
    host.browserUrl("acme/open", "v1.0.0", "open.tar.gz"),
  );
  assert.equal(await response.text(), "open");
  assert.deepEqual(host.tokenLeaks.slice(leaksBefore), []);
});

test("a private asset without the token is not found, and says so without retrying", async () => {
  await assert.rejects(
    client().get(assetApiUrl, { accept: "application/octet-stream" }),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.match(error.message, /HTTP 404/);
      return true;
    },
  );
});

test("plain http is refused except on loopback, before any request is made", async () => {
  let calls = 0;
  const counting: typeof fetch = async (...args) => {
    calls++;
    return globalThis.fetch(...args);
  };
  await assert.rejects(client({ fetch: counting }).get("http://example.com/tool.tar.gz"), /only https URLs/);
  await assert.rejects(client({ fetch: counting }).get("ftp://example.com/tool.tar.gz"), /only https URLs/);
  assert.equal(calls, 0);
});

test("a redirect from https to http is refused, and the token is not sent to another https origin", async () => {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const fake: typeof fetch = async (input, init) => {
    const url = String(input);
    const headers = (init?.headers ?? {}) as Record<string, string>;
    seen.push({ url, authorization: headers.authorization });
    if (url.startsWith("https://api.example/downgrade"))
      return new Response(null, { status: 302, headers: { location: "http://mirror.example/x" } });
    if (url.startsWith("https://api.example/elsewhere"))
      return new Response(null, { status: 302, headers: { location: "https://storage.example/x?sig=1" } });
    return new Response("bytes");
  };
  const https = createHttpClient({ fetch: fake, apiBase: "https://api.example", token: "sekret" });
  await assert.rejects(https.get("https://api.example/downgrade"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.match(error.message, /leaves https/);
    assert.doesNotMatch(error.message, /sekret/);
    return true;
  });
  assert.equal(await (await https.get("https://api.example/elsewhere")).text(), "bytes");
  assert.deepEqual(
    seen.map((s) => [new URL(s.url).origin, s.authorization]),
    [
      ["https://api.example", "Bearer sekret"],
      ["https://api.example", "Bearer sekret"],
      ["https://storage.example", undefined],
    ],
  );
});

test("a redirect to a location that is no URL is an error at once, naming it, not a network failure", async () => {
  // Found by test/cli-fuzz.test.ts: "Cannot reach …: Invalid URL; check the network", after three retries.
  let requests = 0;
  const fake: typeof fetch = async () => {
    requests++;
    return new Response(null, { status: 302, headers: { location: "http://[::1" } });
  };
  const http = createHttpClient({ fetch: fake, apiBase: "https://api.example", sleep: async () => {} });
  await assert.rejects(http.get("https://api.example/repos/acme/x"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(
      error.message,
      'Cannot follow the redirect from https://api.example/repos/acme/x: its location "http://[::1" is not a URL',
    );
    return true;
  });
  assert.equal(requests, 1, "not retried");
});

test("5xx answers and reset connections are retried with growing backoff", async () => {
  host.addRepo("acme/flaky");
  const waits: number[] = [];
  const http = client({ sleep: async (ms) => void waits.push(ms) });
  host.failNext("/repos/acme/flaky", { status: 503, count: 2 });
  assert.equal((await http.get(`${host.apiUrl}/repos/acme/flaky`)).status, 200);
  host.failNext("/repos/acme/flaky", { status: 0 });
  assert.equal((await http.get(`${host.apiUrl}/repos/acme/flaky`)).status, 200);
  assert.equal(waits.length, 3);
  assert.ok((waits[1] ?? 0) > (waits[0] ?? 0), `backoff grows: ${waits.join(", ")}`);
  // Three retries: four attempts in all, then the answer is reported.
  host.failNext("/repos/acme/flaky", { status: 502, count: 4 });
  await assert.rejects(http.get(`${host.apiUrl}/repos/acme/flaky`), /HTTP 502/);
  host.failNext("/repos/acme/flaky", { status: 0, count: 4 });
  await assert.rejects(http.get(`${host.apiUrl}/repos/acme/flaky`), /Cannot reach .*check the network/);
  assert.equal(
    (await http.get(`${host.apiUrl}/repos/acme/flaky`)).status,
    200,
    "every canned failure was used",
  );
});

test("a short rate-limit wait is sat out; a long one fails with the reset time and no token", async () => {
  host.addRepo("acme/busy");
  const waits: number[] = [];
  const http = createHttpClient({
    fetch: globalThis.fetch,
    apiBase: host.apiUrl,
    token: host.token,
    sleep: async (ms) => void waits.push(ms),
    now: () => new Date("2026-11-23T10:00:00Z"),
  });
  host.failNext("/repos/acme/busy", { status: 429, headers: { "retry-after": "2" } });
  assert.equal((await http.get(`${host.apiUrl}/repos/acme/busy`)).status, 200);
  const resetSoon = String(Date.parse("2026-11-23T10:00:05Z") / 1000);
  host.failNext("/repos/acme/busy", {
    status: 403,
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": resetSoon },
  });
  assert.equal((await http.get(`${host.apiUrl}/repos/acme/busy`)).status, 200);
  assert.deepEqual(waits, [2000, 5000]);
  const resetLate = String(Date.parse("2026-11-23T11:00:00Z") / 1000);
  host.failNext("/repos/acme/busy", {
    status: 403,
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": resetLate },
  });
  await assert.rejects(http.get(`${host.apiUrl}/repos/acme/busy`), (error: unknown) => {
    assert.ok(error instanceof RateLimitError);
    assert.match(error.message, /rate limit is exhausted\. It resets at 2026-11-23T11:00:00\.000Z/);
    assert.match(error.message, /CODEHOST_TOKEN/);
    assert.ok(!error.message.includes(host.token));
    return true;
  });
  assert.deepEqual(waits, [2000, 5000], "a long wait is not sat out");
});

test("a 403 that is not a rate limit is an error at once", async () => {
  host.failNext("/repos/acme/open", { status: 403 });
  await assert.rejects(client().get(`${host.apiUrl}/repos/acme/open`), /HTTP 403/);
});

test("requests in flight are bounded", async () => {
  let active = 0;
  let peak = 0;
  const slow: typeof fetch = async () => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 5));
    active--;
    return new Response("{}");
  };
  const http = createHttpClient({ fetch: slow, apiBase: "https://api.example", maxConcurrent: 3 });
  await Promise.all(Array.from({ length: 12 }, (_, i) => http.get(`https://api.example/r/${i}`)));
  assert.equal(peak, 3);
});

test("the code-host client dereferences annotated tags and filters nothing itself", async () => {
  host.addRepo("acme/tags");
  host.setTag("acme/tags", "v1.2.0", { commit: "a".repeat(40) });
  host.setTag("acme/tags", "v1.20.0", { commit: "b".repeat(40), annotated: true });
  const codeHost = createCodeHost(client());
  const tags = await codeHost.matchingTags("acme/tags", "v1.2");
  assert.deepEqual(
    tags.map((t) => [t.name, t.type]),
    [
      ["v1.2.0", "commit"],
      ["v1.20.0", "tag"],
    ],
  );
  const before = host.count("/repos/acme/tags/git/tags/");
  assert.equal(await codeHost.tagCommit("acme/tags", tags[0] ?? assert.fail()), "a".repeat(40));
  assert.equal(host.count("/repos/acme/tags/git/tags/"), before, "a lightweight tag costs no request");
  assert.equal(await codeHost.tagCommit("acme/tags", tags[1] ?? assert.fail()), "b".repeat(40));
  assert.equal(host.count("/repos/acme/tags/git/tags/"), before + 1);
  assert.deepEqual(await codeHost.matchingTags("acme/tags", "x"), []);
  assert.equal(await codeHost.commit("acme/tags", "missing"), undefined);
  assert.equal(await codeHost.release("acme/tags", "v1.2.0"), undefined);
  assert.equal(await codeHost.isPrivate("acme/tags"), false);
});

test("a refused token is named without being shown", async () => {
  host.failNext("/repos/acme/open", { status: 401 });
  await assert.rejects(
    client({ token: "ghp_stale-token-value" }).get(`${host.apiUrl}/repos/acme/open`),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.match(error.message, /refused CODEHOST_TOKEN \(HTTP 401\); renew the token, or unset it/);
      assert.ok(!error.message.includes("ghp_stale-token-value"));
      return true;
    },
  );
});
