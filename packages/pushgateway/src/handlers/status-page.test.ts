import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { parseText } from "../exposition/parse-text.js";
import { renderFamily } from "../exposition/rendered-family.js";
import type { Group } from "../store/metric-store.js";
import { handleRequest } from "./routes.js";
import { formatDuration } from "./status-page.js";

// The context's clock: 2026-01-02T03:04:05.678Z.
const NOW_S = Date.parse("2026-01-02T03:04:05.678Z") / 1000;

function group(labels: Record<string, string>, text: string, times: Partial<Group> = {}): Group {
  const families = parseText(text).map((f) => {
    for (const m of f.metrics)
      m.labels = [...m.labels, ...Object.entries(labels)].sort(([a], [b]) => (a < b ? -1 : 1));
    return renderFamily(f);
  });
  return {
    labels,
    families: new Map(families.map((f) => [f.name, f])),
    pushedAt: new Map(families.map((f) => [f.name, (NOW_S - 12) * 1000])),
    pushTime: NOW_S - 12,
    failureTime: 0,
    ...times,
  };
}

async function page(groups: Group[], overrides: Parameters<typeof recordingContext>[0] = {}, path = "/") {
  const { ctx, store } = recordingContext(overrides);
  store.storedGroups = groups;
  const [p, query] = path.split("?");
  const response = await handleRequest({ ...request("GET", p ?? "/"), query }, ctx);
  return { response, html: bodyText(response.body) };
}

/** The one group element (a <section class="group">) whose labels include `label`. */
function groupElement(html: string, label: string): string {
  const found = html.split('<section class="group').find((part) => part.includes(`>${label}</span>`));
  assert.ok(found, `a group element with ${label}`);
  return found.slice(0, found.indexOf("</section>"));
}

test("each group is one element with its labels, last push time, every sample as the text format prints it, and Delete", async () => {
  const { response, html } = await page([
    group(
      { job: "backup", instance: "db1" },
      '# TYPE backup_bytes gauge\n# HELP backup_bytes Bytes written.\nbackup_bytes 1.5e+09\n# TYPE lat summary\nlat{quantile="0.5"} 0.00001\nlat_sum 3\nlat_count 4\n',
    ),
  ]);
  assert.equal(response.status, 200);
  assert.equal(response.headers["Content-Type"], "text/html; charset=utf-8");
  const g = groupElement(html, "job=&quot;backup&quot;".replace(/&quot;/g, '"'));
  assert.match(
    g,
    /<span class="label label-job">job="backup"<\/span> <span class="label label-instance">instance="db1"<\/span>/,
  );
  assert.match(
    g,
    /last push <time datetime="2026-01-02T03:03:53.678Z"[^>]*>2026-01-02T03:03:53.678Z<\/time> <span class="ago">\(12 s ago\)<\/span>/,
  );
  const text = g.replace(/<[^>]+>/g, "").replace(/&quot;/g, '"');
  assert.ok(text.includes('backup_bytes{instance="db1",job="backup"} 1.5e+09'), text);
  assert.ok(text.includes('lat{instance="db1",job="backup",quantile="0.5"} 1e-05'), text);
  assert.ok(text.includes('lat_count{instance="db1",job="backup"} 4'), text);
  assert.ok(text.includes('push_time_seconds{instance="db1",job="backup"} 1.767323033678e+09'), text);
  assert.ok(text.includes('push_failure_time_seconds{instance="db1",job="backup"} 0'), text);
  assert.match(g, /Bytes written\./);
  assert.match(
    g,
    /<button type="button" class="delete danger" data-url="\/metrics\/job@base64\/YmFja3Vw=\/instance@base64\/ZGIx="[^>]*>Delete Group<\/button>/,
  );
  assert.match(g, /<details>/, "collapsible");
});

test("everything from pushed data is HTML-escaped: labels, values, HELP", async () => {
  const { html } = await page([
    group(
      { job: "<img src=x onerror=alert(1)>", x: '"><script>alert(2)</script>' },
      '# HELP m <b>&amp;</b>\nm{v="</pre><script>"} 1\n',
    ),
  ]);
  assert.doesNotMatch(html, /<img|<script>|<b>|<\/pre><script>/);
  assert.match(html, /job="&lt;img src=x onerror=alert\(1\)&gt;"/);
  assert.match(html, /&lt;b&gt;&amp;amp;&lt;\/b&gt;/);
  // The JSON the live filter reads sits in an attribute, quotes escaped.
  assert.match(html, /data-labels="\{&quot;job&quot;:&quot;&lt;img/);
});

test("a failed last push is marked and its time shown; without a failure no failure time", async () => {
  const { html } = await page([
    group({ job: "bad" }, "m 1\n", { failureTime: NOW_S - 2 }),
    group({ job: "good" }, "n 1\n"),
  ]);
  const bad = groupElement(html, 'job="bad"');
  assert.match(bad, /^ failed"/, "the element carries the failed class");
  assert.match(bad, /<span class="failure">Last push failed! <time datetime="2026-01-02T03:04:03.678Z"/);
  assert.doesNotMatch(groupElement(html, 'job="good"'), /class="failure"/);
});

test("with --push.group-ttl each group shows the TTL left; without it none", async () => {
  const g = group({ job: "t" }, "m 1\n");
  const withTtl = (await page([g], { groupTtlMs: 3_600_000 })).html;
  assert.match(
    withTtl,
    /<span class="ttl" data-expires="\d+">TTL left <span class="ttl-left">59 min 48 s<\/span><\/span>/,
  );
  assert.doesNotMatch((await page([g])).html, /TTL left/);
});

test("the page's script and stylesheet are static/ files under the path prefix, not inline", async () => {
  const { html, response } = await page([], { pathPrefix: "/pg" });
  assert.match(html, /<link rel="stylesheet" href="\/pg\/static\/pushgateway\.css\?v=[0-9a-f]{16}">/);
  assert.match(html, /<script src="\/pg\/static\/pushgateway\.js\?v=[0-9a-f]{16}" defer><\/script>/);
  assert.doesNotMatch(html, /<script>|<style|onclick=/);
  assert.match(response.headers["Content-Security-Policy"] ?? "", /script-src 'self'/);
  assert.match(html, /No metric groups have been pushed\./);
});

test("Delete All N Groups only with the admin API, aimed at the wipe under the prefix", async () => {
  const groups = [group({ job: "a" }, "m 1\n"), group({ job: "b" }, "n 1\n")];
  assert.match(
    (await page(groups, { enableAdminApi: true, pathPrefix: "/x" })).html,
    /<button type="button" class="danger" id="wipe" data-url="\/x\/api\/v1\/admin\/wipe">Delete All <span id="group-total">2<\/span> Groups<\/button>/,
  );
  assert.doesNotMatch((await page(groups)).html, /Delete All/);
});

test("?filter= lists only the matching groups, server-side (works without JavaScript)", async () => {
  const groups = [
    group({ job: "alpha", env: "prod" }, "m 1\n"),
    group({ job: "beta", env: "test" }, "n 1\n"),
    group({ job: "gamma" }, "o 1\n"),
  ];
  const shown = async (filter: string) =>
    [
      ...(await page(groups, {}, `/?filter=${encodeURIComponent(filter)}`)).html.matchAll(
        /label-job">job="(\w+)"/g,
      ),
    ].map((m) => m[1]);
  assert.deepEqual(await shown('env="prod"'), ["alpha"]);
  assert.deepEqual(await shown("env!=prod"), ["beta", "gamma"]);
  assert.deepEqual(await shown('job=~"(al|be).*"'), ["alpha", "beta"]);
  assert.deepEqual(await shown("env=~.+ job!~beta"), ["alpha"]);
  assert.deepEqual(await shown("GAM"), ["gamma"]);
  const { html } = await page(groups, {}, `/?filter=${encodeURIComponent("job=~(")}`);
  assert.match(
    html,
    /<p class="filter-error" role="alert">invalid regular expression in job=~&quot;\(&quot;/,
  );
  assert.match(html, /3 groups/, "an unreadable filter filters nothing");
  assert.match((await page(groups, {}, "/?filter=env%3Dprod")).html, /1 of 3 groups/);
});

test("the status tab: build information, start time and start-up flags", async () => {
  const { html } = await page([], {
    status: () => ({
      build_information: { version: "1.11.0", goVersion: "node20" },
      flags: { "web.enable-admin-api": "true", "persistence.interval": "5m0s" },
      start_time: "2026-01-02T00:00:00.000Z",
    }),
  });
  const status = html.slice(html.indexOf('<section id="status"'));
  assert.match(status, /<th scope="row">version<\/th><td>1\.11\.0<\/td>/);
  assert.match(status, /<th scope="row">web\.enable-admin-api<\/th><td>true<\/td>/);
  assert.match(status, /<time datetime="2026-01-02T00:00:00.000Z">/);
});

test("/status serves the same page; other methods get 405", async () => {
  assert.match((await page([], {}, "/status")).html, /<title>Prometheus Pushgateway<\/title>/);
  const { ctx } = recordingContext();
  assert.equal((await handleRequest(request("POST", "/"), ctx)).status, 405);
});

test("formatDuration: seconds, then minutes, hours, days", () => {
  assert.equal(formatDuration(0), "0 s");
  assert.equal(formatDuration(-5000), "0 s");
  assert.equal(formatDuration(59_999), "59 s");
  assert.equal(formatDuration(61_000), "1 min 1 s");
  assert.equal(formatDuration(3_600_000 + 120_000), "1 h 2 min");
  assert.equal(formatDuration(90_000_000), "1 d 1 h");
});

test("?match[]= selects groups as /api/v1/groups does; with the admin API the button deletes the selection", async () => {
  const groups = [
    group({ job: "batch-1" }, "m 1\n"),
    group({ job: "batch-2", instance: "x" }, "n 1\n"),
    group({ job: "web" }, "o 1\n"),
  ];
  const jobsShown = (html: string) =>
    [...html.matchAll(/<span class="label[^"]*">job="([^"]+)"<\/span>/g)].map((m) => m[1]);
  const selector = '{job=~"batch-.*"}';
  const query = `match[]=${encodeURIComponent(selector)}`;
  const { html } = await page(groups, { enableAdminApi: true, pathPrefix: "/x" }, `/?${query}`);
  assert.deepEqual(jobsShown(html), ["batch-1", "batch-2"]);
  assert.match(html, /<p class="count" id="group-count">2 groups<\/p>/);
  assert.match(html, /Groups selected by <code>\{job=~&quot;batch-\.\*&quot;\}<\/code>/);
  assert.match(
    html,
    /<input type="search" id="match" name="match\[\]" value="\{job=~&quot;batch-\.\*&quot;\}"/,
  );
  assert.match(
    html,
    /<button type="button" class="danger" id="delete-selected" data-url="\/x\/api\/v1\/admin\/groups\?match%5B%5D=%7Bjob%3D%7E%22batch-.\*%22%7D">Delete <span id="group-total">2<\/span> Selected Groups<\/button>/,
  );
  assert.doesNotMatch(html, /id="wipe"/);
  // Two selectors are a union, kept as hidden fields.
  const two = (await page(groups, {}, `/?${query}&match[]=${encodeURIComponent('{job="web"}')}`)).html;
  assert.deepEqual(jobsShown(two), ["batch-1", "batch-2", "web"]);
  assert.match(two, /<input type="hidden" name="match\[\]" value="\{job=&quot;web&quot;\}">/);
  // A selector that does not parse: every group, the parser's message, no deletion of a selection.
  const bad = (await page(groups, { enableAdminApi: true }, `/?match[]=${encodeURIComponent("{job=}")}`))
    .html;
  assert.deepEqual(jobsShown(bad), ["batch-1", "batch-2", "web"]);
  assert.match(
    bad,
    /<p class="filter-error" role="alert">match\[\]: parse error at char 6: expected a quoted value after job=, got &quot;}&quot;<\/p>/,
  );
  assert.match(bad, /id="wipe"/);
});
