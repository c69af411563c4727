import { readFileSync } from "node:fs";
import { shortHash } from "../short-hash.js";
import type { GatewayRequest, GatewayResponse } from "./responses.js";
import { textError } from "./responses.js";

/** The status page's files, in the package's `static/` directory, by the name they are served under. */
const ASSETS: Readonly<Record<string, string>> = {
  "pushgateway.js": "text/javascript; charset=utf-8",
  "pushgateway.css": "text/css; charset=utf-8",
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** Short content hash: the ETag, and the `?v=` the page links with. */
  readonly version: string;
}

const loaded = new Map<string, Asset>();

// This module runs as dist/src/handlers/static-assets.js, three levels below the package directory.
const STATIC_DIR = new URL("../../../static/", import.meta.url);

function asset(name: string): Asset | undefined {
  const type = ASSETS[name];
  if (type === undefined) return undefined;
  let found = loaded.get(name);
  if (found === undefined) {
    const body = readFileSync(new URL(name, STATIC_DIR));
    found = { body, type, version: shortHash(body) };
    loaded.set(name, found);
  }
  return found;
}

/**
 * The path the page links an asset with, below the path prefix: `static/<name>?v=<content hash>`, so a browser
 * may keep it for a year and still fetches the new file after an upgrade (the URL changes with the content).
 */
export function assetPath(name: string): string {
  const found = asset(name);
  if (found === undefined) throw new Error(`no static asset ${name}`);
  return `static/${name}?v=${found.version}`;
}

/**
 * `GET /static/<name>`: the page's script and stylesheet with their content types, an ETag (`If-None-Match` gets
 * 304) and caching: a year, immutable, when requested with the current `?v=` hash (what the page links), else
 * `no-cache` (revalidate every time), so an old copy is never used after an upgrade. Anything else under static/ is
 * 404 `404 page not found` (upstream serves its static/ with Go's file server, which answers the same).
 */
export function staticAsset(req: GatewayRequest): GatewayResponse {
  const found = asset(req.path.slice("/static/".length));
  if (found === undefined) return textError(404, "404 page not found");
  const etag = `"${found.version}"`;
  const versioned = new URLSearchParams(req.query ?? "").get("v") === found.version;
  const headers = {
    "Cache-Control": versioned ? "public, max-age=31536000, immutable" : "no-cache",
    ETag: etag,
    "X-Content-Type-Options": "nosniff",
  };
  const match = req.headers["if-none-match"];
  if (match?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag))
    return { status: 304, headers, body: "" };
  return { status: 200, headers: { ...headers, "Content-Type": found.type }, body: found.body };
}
