/**
 * The redirects upstream's routers send before any handler runs (main.go: httprouter trees behind Go's ServeMux, the
 * API router mounted with http.StripPrefix): a path one trailing slash off a route, or a route in other letter case,
 * is redirected to it (julienschmidt/httprouter 1.3 `RedirectTrailingSlash`/`RedirectFixedPath`: 301 for GET, 307
 * keeping the method otherwise), and the API mount without its slash to it (ServeMux, 301 for every method).
 */

/** What decides upstream's route trees. */
export interface RouteSettings {
  /** `--web.route-prefix`, without a trailing slash ("" at the root). */
  readonly prefix: string;
  /** `--web.telemetry-path`. */
  readonly telemetryPath: string;
  readonly enableAdminApi: boolean;
}

type Trees = Readonly<Record<string, readonly string[]>>;

/** main.go's routes on the main router, per method, in httprouter syntax. */
function mainTrees(s: RouteSettings): Trees {
  const p = s.prefix;
  const push = ["", "@base64"].flatMap((b) => [
    `${p}/metrics/job${b}/:job/*labels`,
    `${p}/metrics/job${b}/:job`,
  ]);
  return {
    GET: [
      `${p}/-/healthy`,
      `${p}/-/ready`,
      `${p}${s.telemetryPath}`,
      `${p}/static/*filepath`,
      `${p}/status`,
      `${p}/`,
      `${p}/debug/pprof/*pprof`,
      // Registered outside the prefix (main.go).
      "/-/quit",
    ],
    PUT: [...push, `${p}/-/quit`],
    POST: [...push, `${p}/-/quit`],
    DELETE: push,
  };
}

/** api/v1/api.go `Register` plus the wipe route, as the API router sees paths (prefix and `/api/v1` stripped). */
function apiTrees(s: RouteSettings): Trees {
  return { GET: ["/status", "/metrics"], OPTIONS: ["/*path"], PUT: s.enableAdminApi ? ["/admin/wipe"] : [] };
}

interface Compiled {
  readonly exact: RegExp;
  readonly folded: RegExp;
  /** Static text and wildcards in order: a wildcard is rebuilt from what the request had there. */
  readonly parts: readonly { text: string; wildcard: boolean }[];
}

const cache = new Map<string, Compiled>();

/** `:name` is one non-empty segment, `*name` the rest from its slash on (httprouter tree.go). */
function compile(pattern: string): Compiled {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  const parts: { text: string; wildcard: boolean }[] = [];
  let source = "";
  for (const token of pattern.split(/(:[^/]+|\/\*.+$)/)) {
    if (token === "") continue;
    if (token.startsWith(":")) {
      parts.push({ text: "", wildcard: true });
      source += "([^/]+)";
    } else if (token.startsWith("/*")) {
      parts.push({ text: "", wildcard: true });
      // [\s\S]: a catch-all takes a line feed (`%0A`) too, which `.` does not match.
      source += "(/[\\s\\S]*)";
    } else {
      parts.push({ text: token, wildcard: false });
      source += token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }
  }
  const compiled = { exact: new RegExp(`^${source}$`), folded: new RegExp(`^${source}$`, "i"), parts };
  cache.set(pattern, compiled);
  return compiled;
}

/** The route in the registered letter case with the request's wildcard values (httprouter `findCaseInsensitivePath`). */
function caseFixed(pattern: string, path: string): string | undefined {
  const { folded, parts } = compile(pattern);
  const m = folded.exec(path);
  if (m === null) return undefined;
  let group = 1;
  return parts.map((part) => (part.wildcard ? (m[group++] ?? "") : part.text)).join("");
}

/** httprouter's redirect for `path` in `trees`, or undefined when a route matches or none is near. */
function routerRedirect(method: string, path: string, trees: Trees): string | undefined {
  const patterns = trees[method];
  if (patterns === undefined || method === "CONNECT" || path === "/") return undefined;
  if (patterns.some((p) => compile(p).exact.test(path))) return undefined;
  const toggled = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
  if (patterns.some((p) => compile(p).exact.test(toggled))) return toggled;
  // tree.go getValue: a request ending at a tree node that is just "/" with a parameter child recommends dropping
  // the slash though nothing is there (`/metrics/job/` → `/metrics/job`, then 404). The node is "/" when another
  // route branches off right before it (`/metrics/job@base64/…`); `/metrics/job@base64/` ends mid-node: 404.
  const stem = path.slice(0, -1);
  if (
    path.endsWith("/") &&
    patterns.some((p) => p.startsWith(`${path}:`)) &&
    patterns.some((p) => p.startsWith(stem) && p.length > stem.length && p[stem.length] !== "/")
  )
    return toggled;
  for (const candidate of [path, toggled]) {
    for (const p of patterns) {
      const fixed = caseFixed(p, candidate);
      if (fixed !== undefined) return fixed;
    }
  }
  return undefined;
}

/**
 * Where upstream redirects `method path` (decoded, route prefix included), with the status and whether httprouter
 * sends it (`router`; else ServeMux, which builds a new URL of path and query), or undefined. A redirect
 * from the API router names the path as that router saw it, without prefix and `/api/v1` (http.StripPrefix leaves it
 * so): `GET /api/v1/status/` goes to `/status`, as upstream's does.
 */
export function upstreamRedirect(
  method: string,
  path: string,
  settings: RouteSettings,
): { path: string; status: 301 | 307; router: boolean } | undefined {
  const apiMount = `${settings.prefix}/api/v1`;
  if (path === apiMount) return { path: `${apiMount}/`, status: 301, router: false };
  const api = path.startsWith(`${apiMount}/`);
  const target = api
    ? routerRedirect(method, path.slice(apiMount.length), apiTrees(settings))
    : routerRedirect(method, path, mainTrees(settings));
  if (target === undefined) return undefined;
  return { path: target, status: method === "GET" ? 301 : 307, router: true };
}
