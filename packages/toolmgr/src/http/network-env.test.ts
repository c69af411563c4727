import assert from "node:assert/strict";
import { test } from "node:test";
import { apiBaseFromEnv, codeHostToken, proxyRuleFromEnv } from "./network-env.js";

const via = (env: Record<string, string>, url: string) => {
  const choice = proxyRuleFromEnv(env)(new URL(url));
  return choice.kind === "proxy" ? `${choice.variable} ${choice.url.host}` : "direct";
};

test("the first token variable set wins; empty ones do not count", () => {
  assert.equal(codeHostToken({ GH_TOKEN: "b", GITHUB_TOKEN: "c" })?.variable, "GH_TOKEN");
  assert.deepEqual(codeHostToken({ CODEHOST_TOKEN: "", GITHUB_TOKEN: "c" }), {
    value: "c",
    variable: "GITHUB_TOKEN",
  });
  assert.equal(codeHostToken({}), undefined);
});

test("CODEHOST_API_URL must be an http(s) URL", () => {
  assert.equal(apiBaseFromEnv({}), "https://api.github.com");
  assert.throws(() => apiBaseFromEnv({ CODEHOST_API_URL: "ftp://x" }), /CODEHOST_API_URL="ftp:\/\/x"/);
});

test("HTTPS_PROXY for https, HTTP_PROXY for http, lower case first, a bare host:port is an http proxy", () => {
  const env = { HTTPS_PROXY: "p1:3128", https_proxy: "http://p2:3128", HTTP_PROXY: "http://p3:8080" };
  assert.equal(via(env, "https://api.github.com/x"), "https_proxy p2:3128");
  assert.equal(via(env, "http://127.0.0.1:9/x"), "HTTP_PROXY p3:8080", "no implicit loopback bypass");
  assert.equal(via({ HTTPS_PROXY: "p1:3128" }, "https://a.example/"), "HTTPS_PROXY p1:3128");
  assert.equal(via({ HTTPS_PROXY: "p1:3128" }, "http://a.example/"), "direct");
});

test("NO_PROXY: hosts with their subdomains, leading dot or *., host:port, IPs, CIDR, *", () => {
  const env = (no: string) => ({ HTTPS_PROXY: "http://p:1", NO_PROXY: no });
  assert.equal(via(env("example.com"), "https://api.example.com/"), "direct");
  assert.equal(via(env("example.com"), "https://badexample.com/"), "HTTPS_PROXY p:1");
  assert.equal(via(env(".example.com"), "https://example.com/"), "direct");
  assert.equal(via(env("*.example.com"), "https://a.example.com/"), "direct");
  assert.equal(via(env("example.com:8443"), "https://example.com/"), "HTTPS_PROXY p:1");
  assert.equal(via(env("example.com:8443"), "https://example.com:8443/"), "direct");
  assert.equal(via(env("10.0.0.0/8, 192.168.1.5"), "https://10.1.2.3/"), "direct");
  assert.equal(via(env("10.0.0.0/8, 192.168.1.5"), "https://192.168.1.5/"), "direct");
  assert.equal(via(env("10.0.0.0/8"), "https://11.0.0.1/"), "HTTPS_PROXY p:1");
  assert.equal(via(env("::1"), "https://[::1]:8/"), "direct");
  assert.equal(via(env("fd00::/8"), "https://[fd12::1]/"), "direct");
  assert.equal(via(env("*"), "https://anything/"), "direct");
});

test("a proxy URL that does not parse names its variable", () => {
  assert.throws(() => proxyRuleFromEnv({ http_proxy: "http://[x" }), /Cannot use http_proxy="http:\/\/\[x"/);
  assert.throws(() => proxyRuleFromEnv({ HTTPS_PROXY: "socks5://p:1" }), /not an http\(s\) proxy URL/);
});
