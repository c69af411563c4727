import assert from "node:assert/strict";
import { test } from "node:test";
import { upstreamRedirect } from "./router-redirect.js";

const root = { prefix: "", telemetryPath: "/metrics", enableAdminApi: false };
const foo = { prefix: "/foo", telemetryPath: "/metrics", enableAdminApi: true };

// What Debian's prometheus-pushgateway 1.5.1 answered to each (same routers as upstream 1.11: main.go over
// prometheus/common route and julienschmidt/httprouter 1.3); undefined = no redirect (the route, a 405 or a 404).
const CASES: [settings: typeof root, method: string, path: string, expected: [number, string] | undefined][] =
  [
    [root, "GET", "/metrics/", [301, "/metrics"]],
    [root, "GET", "/-/healthy/", [301, "/-/healthy"]],
    [root, "GET", "/status/", [301, "/status"]],
    [root, "GET", "/static", [301, "/static/"]],
    [root, "GET", "/debug/pprof", [301, "/debug/pprof/"]],
    [root, "GET", "/-/quit/", [301, "/-/quit"]],
    [root, "GET", "/METRICS", [301, "/metrics"]],
    // A line feed and a NUL in the labels (`%0A`, `%00`) are taken by the catch-all (found by http-surface-fuzz).
    [root, "POST", "/metrics/JOB/c@/h\n/a\u0000b#f", [307, "/metrics/job/c@/h\n/a\u0000b#f"]],
    [root, "GET", "/-/Healthy", [301, "/-/healthy"]],
    [root, "GET", "/STATUS", [301, "/status"]],
    [root, "PUT", "/Metrics/job/a", [307, "/metrics/job/a"]],
    [root, "DELETE", "/metrics/JOB/a", [307, "/metrics/job/a"]],
    [root, "POST", "/-/quit/", [307, "/-/quit"]],
    [root, "PUT", "/metrics/job/", [307, "/metrics/job"]],
    [root, "PUT", "/metrics/job@base64/", undefined],
    [root, "GET", "/metrics/job/", undefined],
    [root, "OPTIONS", "/metrics/job/", undefined],
    [root, "GET", "/Metrics/job/a", undefined],
    [root, "PUT", "/METRICS", undefined],
    [root, "HEAD", "/metrics/", undefined],
    [root, "PUT", "/metrics/job/a/", undefined],
    [root, "GET", "/metrics", undefined],
    [root, "GET", "/", undefined],
    // The API router behind http.StripPrefix: its redirects name the path it saw, without /api/v1.
    [root, "GET", "/api/v1/status/", [301, "/status"]],
    [root, "GET", "/api/v1/Status", [301, "/status"]],
    [root, "PUT", "/api/v1/admin/wipe/", undefined],
    // ServeMux: the API mount without its slash, for every method.
    [root, "GET", "/api/v1", [301, "/api/v1/"]],
    [root, "PUT", "/api/v1", [301, "/api/v1/"]],
    [foo, "GET", "/foo", [301, "/foo/"]],
    [foo, "PUT", "/foo", undefined],
    [foo, "GET", "/FOO/metrics", [301, "/foo/metrics"]],
    [foo, "GET", "/foo/metrics/", [301, "/foo/metrics"]],
    [foo, "GET", "/-/QUIT", [301, "/-/quit"]],
    [foo, "PUT", "/foo/-/quit/", [307, "/foo/-/quit"]],
    [foo, "PUT", "/foo/Metrics/job/x", [307, "/foo/metrics/job/x"]],
    [foo, "GET", "/foo/api/v1/status/", [301, "/status"]],
    [foo, "PUT", "/foo/api/v1/admin/wipe/", [307, "/admin/wipe"]],
    [foo, "PUT", "/foo/api/v1/admin/Wipe", [307, "/admin/wipe"]],
    [foo, "PUT", "/foo/api/v1", [301, "/foo/api/v1/"]],
    [foo, "GET", "/foo/metrics/job/", undefined],
    [foo, "PUT", "/foo/metrics/job/", [307, "/foo/metrics/job"]],
  ];

test("upstreamRedirect() redirects where upstream's routers do, and nowhere else", () => {
  for (const [settings, method, path, expected] of CASES) {
    const got = upstreamRedirect(method, path, settings);
    assert.deepEqual(
      got === undefined ? undefined : [got.status, got.path],
      expected,
      `${method} ${path} (prefix "${settings.prefix}")`,
    );
  }
});

test("upstreamRedirect() leaves the beyond-upstream routes alone", () => {
  for (const [method, path] of [
    ["POST", "/v1/metrics"],
    ["PUT", "/aggregate/metrics/job/a"],
    ["GET", "/api/v1/groups"],
    ["DELETE", "/api/v1/admin/groups"],
  ] as const)
    assert.equal(upstreamRedirect(method, path, root), undefined, `${method} ${path}`);
});
