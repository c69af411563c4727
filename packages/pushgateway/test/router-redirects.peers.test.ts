// Upstream's routers answer before any handler: Go's ServeMux cleans paths and redirects the API mount to its slash,
// httprouter redirects a path one slash or one letter case off a route (301 for GET, 307 otherwise), answers OPTIONS
// on every routed path and 405s other methods there. The same requests go to Debian's prometheus-pushgateway 1.5.1
// (same routers as upstream 1.11: main.go over prometheus/common route and julienschmidt/httprouter 1.3) and to
// ours, at the root and under a route prefix, and every answer must agree, headers included.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import type { Side } from "./support/peer-compare.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);

const HEADERS = ["allow", "location", "content-type", "content-length", "x-content-type-options"];

/** Status, the headers above and the body; a fresh connection each (1.5.1 may stall a kept-alive one). */
function answer(side: Side, method: string, path: string): Promise<string> {
  const url = new URL(side.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const headers = HEADERS.filter((h) => res.headers[h] !== undefined).map(
          (h) => `${h}: ${res.headers[h]}`,
        );
        resolve([res.statusCode, ...headers, Buffer.concat(chunks).toString()].join("\n"));
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS", "PATCH"];

/** Paths whose answers do not depend on the stores, the runtime or the web UI (those are compared elsewhere). */
const AT_ROOT = [
  // net/http answers `OPTIONS *` itself and ServeMux refuses any other method on `*`.
  "*",
  // Absolute-form targets (as proxies send them) are routed by their path; httprouter's redirects name the whole URL.
  "http://gw.example/-/healthy",
  "HTTP://gw.example/metrics/?a=b",
  "http://gw.example/Metrics/job/a",
  "http://gw.example//a",
  "http://gw.example",
  "/METRICS",
  "/metrics/",
  "/-/healthy/",
  "/-/Healthy",
  "/-/READY",
  "/status/",
  "/STATUS?a=b&c=%20",
  "/static",
  "/debug/pprof",
  "/-/quit",
  "/-/quit/",
  "/Metrics/job/a",
  "/metrics/JOB@BASE64/YQ",
  "/metrics/job/",
  "/metrics/job@base64/",
  "/metrics/job",
  "/api/v1",
  "/api/v1/status/",
  "/api/v1/Metrics",
  "/api/v1/admin/wipe/",
  "/metrics/job/a//b%20c?x=%20",
  "/metrics/job/a//%CE%A0",
  "/metrics/job/a/./'<>",
  // A bare `?`: kept by httprouter's redirects (req.URL.String), dropped by ServeMux's (found by http-surface-fuzz).
  "/metrics/?",
  "/METRICS?",
  "//metrics?",
  "/api/v1?",
  "/api/v1/status/?",
  "http://gw.example/api/v1?a=b",
];

const UNDER_PREFIX = [
  "/foo",
  "/FOO",
  "/foobar",
  "/FOO/metrics",
  "/foo/metrics/",
  "/-/quit",
  "/-/QUIT",
  "/foo/-/quit",
  "/foo/-/quit/",
  "/foo/Metrics/job/x",
  "/foo/metrics/job/",
  "/foo/api/v1",
  "/foo/api/v1/status/",
  "/foo/api/v1/admin/wipe/",
  "/foo/api/v1/admin/Wipe",
  "/api/v1/status",
  "/metrics",
];

const PREFIX_FORMS = [
  "/foo",
  "/foo/-/healthy",
  "/foo/-/ready/",
  "/foo/metrics/job/a",
  "/-/healthy",
  "/foo/api/v1",
];

for (const [name, args, paths] of [
  ["at the root", [], AT_ROOT],
  [
    "under --web.route-prefix=/foo with the admin API",
    ["--web.route-prefix=/foo", "--web.enable-admin-api"],
    UNDER_PREFIX,
  ],
  // main.go computeRoutePrefix: one leading slash, none trailing, the external URL's path when no prefix is given.
  ["under --web.route-prefix=foo/", ["--web.route-prefix=foo/"], PREFIX_FORMS],
  ["under --web.external-url=foo", ["--web.external-url=foo"], PREFIX_FORMS],
  // main.go path.Join(routePrefix, metricsPath): the scrape is served at /m.
  ["with --web.telemetry-path=/m/", ["--web.telemetry-path=/m/"], ["/m/", "/M", "/metrics", "/m//"]],
] as const) {
  describe(`router answers ${name}`, () => {
    let peer: Side;
    let ours: Side;
    before(async () => {
      [peer, ours] = await Promise.all([startPeerGateway([...args]), startGateway([...args])]);
    });

    for (const path of paths) {
      test(path, async () => {
        for (const method of METHODS) {
          const [p, o] = [await answer(peer, method, path), await answer(ours, method, path)];
          assert.equal(o, p, `${method} ${path}`);
        }
      });
    }
  });
}
