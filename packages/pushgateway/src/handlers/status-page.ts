import { escapeHtml } from "../escape-html.js";
import type { GatewayContext, GatewayResponse } from "./responses.js";

/**
 * `GET /` and `/status`: one entry per group with its labels, its families, a failed-push badge and a Delete Group
 * button. As upstream's template (resources/template.html, static/functions.js) the button sends `DELETE` to a
 * relative `metrics/job@base64/<job>=/<name>@base64/<value>=` path (the extra `=` keeps empty values deletable, #377),
 * so it works under any route prefix; with the admin API a Delete All Groups button wipes the store.
 */
export function statusPage(ctx: GatewayContext): GatewayResponse {
  return {
    status: 200,
    headers: { "Content-Type": "text/html; charset=utf-8" },
    body: statusHtml(ctx),
  };
}

function statusHtml(ctx: GatewayContext): string {
  const b64 = (v: string) => `${Buffer.from(v).toString("base64url")}=`;
  const groups = ctx.store.groups();
  const rows = groups.map((g) => {
    // `job` first, the others sorted, as the upstream template shows the badges.
    const names = [
      "job",
      ...Object.keys(g.labels)
        .filter((k) => k !== "job")
        .sort(),
    ];
    const labels = names
      .map((k) => `<span class="label">${escapeHtml(k)}="${escapeHtml(g.labels[k] ?? "")}"</span>`)
      .join(" ");
    const path = `metrics/job@base64/${b64(g.labels.job ?? "")}${names
      .slice(1)
      .map((k) => `/${k}@base64/${b64(g.labels[k] ?? "")}`)
      .join("")}`;
    const failed = g.failureTime > g.pushTime ? ' <strong class="failed">Last push failed!</strong>' : "";
    const families = [...g.families.values()]
      .map(
        (f) => `<li>${escapeHtml(f.name)} <em>${f.type.toUpperCase()}</em> (${f.lines.length} series)</li>`,
      )
      .join("");
    return `<li class="group">${labels}${failed} <button data-delete="${escapeHtml(path)}" onclick="fetch(this.dataset.delete,{method:'DELETE'}).then(()=>location.reload())">Delete Group</button><ul>${families}</ul></li>`;
  });
  const wipe = ctx.enableAdminApi
    ? `<button data-wipe="api/v1/admin/wipe" onclick="fetch(this.dataset.wipe,{method:'PUT'}).then(()=>location.reload())">Delete All ${groups.length} Groups</button>`
    : "";
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Prometheus Pushgateway</title></head><body><h1>Prometheus Pushgateway</h1>${wipe}<ul>${rows.join("")}</ul></body></html>\n`;
}
