import { escapeHtml } from "../escape-html.js";
import { formatGoFloat } from "../exposition/go-float.js";
import { expositionOrder, type RenderedFamily } from "../exposition/rendered-family.js";
import { type FilterTerm, matchesFilter, parseGroupFilter } from "../group-filter.js";
import { type GroupSelection, groupSelection } from "../group-selection.js";
import { isoTime } from "../iso-time.js";
import { shortHash } from "../short-hash.js";
import {
  FAILURE_TIME,
  FAILURE_TIME_HELP,
  type Group,
  lastPushMs,
  PUSH_TIME,
  PUSH_TIME_HELP,
} from "../store/metric-store.js";
import type { GatewayContext, GatewayRequest, GatewayResponse } from "./responses.js";
import { assetPath } from "./static-assets.js";

/**
 * `GET /` and `/status`: the metric groups and the gateway's status as server-rendered HTML, readable without
 * JavaScript; static/pushgateway.js only enhances it (live filter, "N s ago" and TTL countdowns, tabs, delete with a
 * confirmation, expansion kept across reloads). As upstream (resources/template.html): a collapsible entry per
 * group with its labels (`job` first, the others sorted), last push time, every family with its samples, a Delete
 * Group button sending `DELETE metrics/job@base64/<job>=/<name>@base64/<value>=` (the extra `=` keeps empty values
 * deletable, upstream #377), a Delete All button with the admin API, and a status tab. Beyond upstream: the
 * `?filter=` of groups by label, the TTL left with `--push.group-ttl`, failure times in red.
 */
export function statusPage(req: GatewayRequest, ctx: GatewayContext): GatewayResponse {
  return {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      // Nothing inline: the script and stylesheet are files from static/, so the page can forbid everything else.
      "Content-Security-Policy":
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'",
      "X-Content-Type-Options": "nosniff",
    },
    body: pageHtml(req, ctx),
  };
}

function pageHtml(req: GatewayRequest, ctx: GatewayContext): string {
  const prefix = ctx.pathPrefix;
  const nowMs = ctx.now().getTime();
  const params = new URLSearchParams(req.query ?? "");
  const filterText = params.get("filter") ?? "";
  const filter = parseGroupFilter(filterText);
  const terms: readonly FilterTerm[] = filter.ok ? filter.terms : [];
  // Beyond upstream: `?match[]=` selects groups as GET /api/v1/groups does (a union of selectors).
  const selection = groupSelection(params.getAll("match[]"));
  const groups = ctx.store
    .groups()
    .filter((g) => selection.selects(g.labels))
    .map((g) => ({ group: g, path: deletePath(g), text: labelText(g) }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const shown = groups.filter(({ group }) => matchesFilter(group.labels, terms));
  const wipe = !ctx.enableAdminApi
    ? ""
    : selection.match.length > 0 && selection.error === undefined
      ? `<button type="button" class="danger" id="delete-selected" data-url="${escapeHtml(`${prefix}/api/v1/admin/groups?${selection.query}`)}"${groups.length === 0 ? " disabled" : ""}>Delete <span id="group-total">${groups.length}</span> Selected Groups</button>`
      : `<button type="button" class="danger" id="wipe" data-url="${escapeHtml(`${prefix}/api/v1/admin/wipe`)}"${groups.length === 0 ? " disabled" : ""}>Delete All <span id="group-total">${groups.length}</span> Groups</button>`;
  const filterError =
    (filter.ok ? "" : `<p class="filter-error" role="alert">${escapeHtml(filter.error)}</p>`) +
    (selection.error === undefined
      ? ""
      : `<p class="filter-error" role="alert">${escapeHtml(selection.error)}</p>`);
  const listing =
    shown.length === 0
      ? `<p class="empty">${groups.length === 0 ? "No metric groups have been pushed." : "No group matches the filter."}</p>`
      : shown
          .map(({ group, path }) => groupHtml(group, { prefix, path, nowMs, ttlMs: ctx.groupTtlMs }))
          .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Prometheus Pushgateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(`${prefix}/${assetPath("pushgateway.css")}`)}">
<script src="${escapeHtml(`${prefix}/${assetPath("pushgateway.js")}`)}" defer></script>
</head>
<body data-now="${nowMs}">
<header class="top">
<span class="brand">Pushgateway</span>
<nav><a href="#metrics" data-tab="metrics">Metrics</a> <a href="#status" data-tab="status">Status</a> <a href="https://github.com/prometheus/pushgateway/blob/master/README.md" rel="noreferrer">Help</a></nav>
</header>
<main>
<section id="metrics" class="tab">
<h1>Metric groups</h1>
<div class="toolbar">
<form class="filter" method="get" role="search">
<label for="filter">Filter groups</label>
<input type="search" id="filter" name="filter" value="${escapeHtml(filterText)}" placeholder='job="batch" instance=~"db-.*" env!=test' autocomplete="off" spellcheck="false">
${selectionInputs(selection)}
<button type="submit">Filter</button>
</form>
${wipe}
</div>
${filterError}${selectionNote(selection)}<p class="count" id="group-count">${countText(shown.length, groups.length)}</p>
<noscript><p class="note">Deleting needs JavaScript; without it use <code>curl -X DELETE</code> on the group's path.</p></noscript>
<div id="groups">
${listing}
</div>
</section>
<section id="status" class="tab">
<h1>Status</h1>
${statusHtml(ctx.status())}
</section>
</main>
<dialog id="confirm" aria-labelledby="confirm-title">
<form method="dialog">
<h2 id="confirm-title">Deletion confirmation</h2>
<p id="confirm-text"></p>
<div class="actions"><button value="cancel">Cancel</button> <button value="delete" class="danger" id="confirm-delete">Delete</button></div>
</form>
</dialog>
</body>
</html>
`;
}

/**
 * The selector field of the filter form: one `match[]` to edit, or, when the URL gave several, each kept as a hidden
 * field (the note above the list names them).
 */
function selectionInputs(selection: GroupSelection): string {
  if (selection.match.length > 1)
    return selection.match
      .map((m) => `<input type="hidden" name="match[]" value="${escapeHtml(m)}">`)
      .join("");
  return `<label for="match">Select</label>
<input type="search" id="match" name="match[]" value="${escapeHtml(selection.match[0] ?? "")}" placeholder='{job=~"batch-.*"}' autocomplete="off" spellcheck="false">`;
}

/** What `?match[]=` selected, with a link back to every group. */
function selectionNote(selection: GroupSelection): string {
  if (selection.match.length === 0 || selection.error !== undefined) return "";
  const selectors = selection.match.map((m) => `<code>${escapeHtml(m)}</code>`).join(" or ");
  return `<p class="selection" id="selection">Groups selected by ${selectors} (<a href="?">all groups</a>)</p>`;
}

function countText(shown: number, total: number): string {
  const noun = total === 1 ? "group" : "groups";
  return shown === total ? `${total} ${noun}` : `${shown} of ${total} ${noun}`;
}

/** Upstream's delete path for a group (relative to the prefix): every value `@base64` with one extra `=`. */
function deletePath(g: Group): string {
  const b64 = (v: string) => `${Buffer.from(v).toString("base64url")}=`;
  return `metrics/job@base64/${b64(g.labels.job ?? "")}${sortedNames(g)
    .slice(1)
    .map((k) => `/${k}@base64/${b64(g.labels[k] ?? "")}`)
    .join("")}`;
}

/** `job` first, the others sorted, as upstream's template shows the label badges. */
function sortedNames(g: Group): string[] {
  return [
    "job",
    ...Object.keys(g.labels)
      .filter((k) => k !== "job")
      .sort(),
  ];
}

/** `job="x", instance="y"`: how the confirmation names a group, and the listing's order. */
function labelText(g: Group): string {
  return sortedNames(g)
    .map((k) => `${k}="${g.labels[k] ?? ""}"`)
    .join(", ");
}

function groupHtml(
  g: Group,
  options: { prefix: string; path: string; nowMs: number; ttlMs: number },
): string {
  const { nowMs } = options;
  // A stable id per grouping key, so the script can keep a group expanded across reloads.
  const id = `group-${shortHash(options.path)}`;
  const names = sortedNames(g);
  const badges = names
    .map((k) => {
      const kind = k === "job" ? "job" : k === "instance" ? "instance" : "other";
      return `<span class="label label-${kind}">${escapeHtml(k)}="${escapeHtml(g.labels[k] ?? "")}"</span>`;
    })
    .join(" ");
  const pushed =
    g.pushTime > 0
      ? `<span class="pushed">last push ${timeHtml(g.pushTime * 1000, nowMs)}</span>`
      : `<span class="pushed">no successful push</span>`;
  const failedLast = g.failureTime > g.pushTime;
  const failure =
    g.failureTime > 0
      ? ` <span class="failure">${failedLast ? "Last push failed!" : "last failed push"} ${timeHtml(g.failureTime * 1000, nowMs)}</span>`
      : "";
  let ttl = "";
  if (options.ttlMs > 0) {
    const expiresMs = lastPushMs(g) + options.ttlMs;
    ttl = ` <span class="ttl" data-expires="${Math.round(expiresMs)}">TTL left <span class="ttl-left">${formatDuration(expiresMs - nowMs)}</span></span>`;
  }
  const families = [...g.families.values()]
    .filter((f) => f.lines.length > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => familyHtml(f, g.pushedAt.get(f.name), nowMs))
    .join("\n");
  const timeLabels = [
    ...names.map((k): [string, string] => [k, g.labels[k] ?? ""]),
    ...(g.labels.instance === undefined ? [["instance", ""] as [string, string]] : []),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const gauges = [
    gaugeHtml({ name: FAILURE_TIME, help: FAILURE_TIME_HELP, labels: timeLabels, value: g.failureTime }),
    gaugeHtml({ name: PUSH_TIME, help: PUSH_TIME_HELP, labels: timeLabels, value: g.pushTime }),
  ].join("\n");
  const count = g.families.size + 2;
  return `<section class="group${failedLast ? " failed" : ""}" id="${id}" data-labels="${escapeHtml(JSON.stringify(g.labels))}">
<details>
<summary><span class="labels">${badges}</span> <span class="meta">${pushed}${failure}${ttl} <span class="families-count">${count} ${count === 1 ? "family" : "families"}</span></span></summary>
<div class="families">
${families}
${gauges}
</div>
</details>
<button type="button" class="delete danger" data-url="${escapeHtml(`${options.prefix}/${options.path}`)}" data-labels-text="${escapeHtml(labelText(g))}">Delete Group</button>
</section>`;
}

function familyHtml(f: RenderedFamily, pushedAtMs: number | undefined, nowMs: number): string {
  const [ordered] = expositionOrder([f]);
  const lines = Array.from(ordered?.order ?? [], (i) => (f.lines.at(i) ?? "").split("\n")).flat();
  const pushed =
    pushedAtMs === undefined ? "" : ` <span class="pushed">last pushed ${timeHtml(pushedAtMs, nowMs)}</span>`;
  return familyBlock({ name: f.name, help: f.help, type: f.type, lines, extra: pushed });
}

function gaugeHtml(options: {
  name: string;
  help: string;
  labels: readonly [string, string][];
  value: number;
}): string {
  const labels = options.labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",");
  return familyBlock({
    name: options.name,
    help: options.help,
    type: "gauge",
    lines: [`${options.name}{${labels}} ${formatGoFloat(options.value)}`],
    extra: "",
  });
}

function familyBlock(options: {
  name: string;
  help: string | undefined;
  type: string;
  lines: readonly string[];
  extra: string;
}): string {
  const help = options.help === undefined ? "" : ` <span class="help">${escapeHtml(options.help)}</span>`;
  // Each line exactly as GET /metrics prints it (no timestamps are stored, so the value follows the last space).
  const samples = options.lines
    .map((line) => {
      const cut = line.lastIndexOf(" ");
      return `<span class="sample"><span class="series">${escapeHtml(line.slice(0, cut))}</span> <span class="value">${escapeHtml(line.slice(cut + 1))}</span></span>`;
    })
    .join("\n");
  return `<article class="family">
<h3><code class="name">${escapeHtml(options.name)}</code> <span class="type">${options.type.toUpperCase()}</span>${help}${options.extra}</h3>
<pre class="samples">${samples}</pre>
</article>`;
}

/** A date-time (ISO 8601, UTC) and how long ago it was; the script keeps the "ago" current. */
function timeHtml(ms: number, nowMs: number): string {
  const iso = isoTime(ms);
  return `<time datetime="${iso}" data-ms="${Math.round(ms)}">${iso}</time> <span class="ago">(${formatDuration(nowMs - ms)} ago)</span>`;
}

/** `12 s`, `3 min 4 s`, `2 h 5 min`, `3 d 4 h` (static/pushgateway.js formats the same way). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** The status tab: build information, start time and the start-up flags (the `/api/v1/status` data). */
function statusHtml(status: Record<string, unknown>): string {
  const table = (title: string, value: unknown) => {
    const rows = Object.entries((value ?? {}) as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(String(v))}</td></tr>`)
      .join("\n");
    return `<h2>${title}</h2>\n<table class="kv">\n${rows}\n</table>`;
  };
  const start = typeof status.start_time === "string" ? status.start_time : "";
  return [
    table("Build information", status.build_information),
    `<h2>Start time</h2>\n<p><time datetime="${escapeHtml(start)}">${escapeHtml(start)}</time></p>`,
    table("Start-up flags", status.flags),
  ].join("\n");
}
