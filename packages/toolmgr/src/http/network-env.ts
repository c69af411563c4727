import { BlockList, isIP } from "node:net";
import { UsageError } from "../errors.js";
import { hideCredentials } from "../hide-credentials.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The variables a code-host token is read from, in the order they are tried (the first set wins). */
export const TOKEN_VARIABLES = ["CODEHOST_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"] as const;

/** A token and the variable it came from (messages name the variable, never the value). */
export interface CodeHostToken {
  readonly value: string;
  readonly variable: (typeof TOKEN_VARIABLES)[number];
}

/**
 * The token of the first set variable among `CODEHOST_TOKEN`, `GH_TOKEN`, `GITHUB_TOKEN` (the order the gh CLI reads
 * its own two in, after ours). Only that one is ever sent; a refused token is never retried with another.
 */
export function codeHostToken(env: Env): CodeHostToken | undefined {
  for (const variable of TOKEN_VARIABLES) {
    const value = env[variable];
    if (value !== undefined && value !== "") return { value, variable };
  }
  return undefined;
}

/**
 * `CODEHOST_API_URL`, checked: an absolute http(s) URL (plain http is refused later unless loopback).
 *
 * @throws {UsageError} naming the variable when it is not a URL
 */
export function apiBaseFromEnv(env: Env): string {
  const text = env.CODEHOST_API_URL;
  if (text === undefined || text === "") return "https://api.github.com";
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new UsageError(
      `Cannot use CODEHOST_API_URL=${JSON.stringify(hideCredentials(text))}: it is not an http(s) URL; give the API's base URL, for example https://api.github.com`,
    );
  }
  return text;
}

/** Where a request goes: straight to its origin, or through a proxy (and which variable named it). */
export type ProxyChoice =
  | { readonly kind: "direct" }
  | { readonly kind: "proxy"; readonly url: URL; readonly variable: string };

/** Decides, per URL, whether a request goes through a proxy. */
export type ProxyRule = (url: URL) => ProxyChoice;

/**
 * The proxy rule of `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (lower-case forms win when both are set, as curl reads
 * them). `NO_PROXY` is a comma list of host names (`example.com` also matches its subdomains, a leading `.` or `*.`
 * is the same), `host:port`, IP addresses, CIDR ranges, or `*` (no proxy at all). Nothing else bypasses the proxy:
 * no implicit exception for loopback, so a proxy in front of a local mirror is honoured too.
 *
 * @throws {UsageError} naming the variable when a proxy URL does not parse
 */
export function proxyRuleFromEnv(env: Env): ProxyRule {
  const pick = (name: string): { text: string; variable: string } | undefined => {
    for (const variable of [name.toLowerCase(), name.toUpperCase()]) {
      const text = env[variable];
      if (text !== undefined && text.trim() !== "") return { text: text.trim(), variable };
    }
    return undefined;
  };
  const https = parseProxy(pick("https_proxy"));
  const http = parseProxy(pick("http_proxy"));
  if (https === undefined && http === undefined) return () => ({ kind: "direct" });
  const bypass = noProxyMatcher(pick("no_proxy")?.text ?? "");
  return (url) => {
    const proxy = url.protocol === "https:" ? https : http;
    if (proxy === undefined || bypass(url)) return { kind: "direct" };
    return { kind: "proxy", ...proxy };
  };
}

function parseProxy(
  found: { text: string; variable: string } | undefined,
): { url: URL; variable: string } | undefined {
  if (found === undefined) return undefined;
  // curl's rule: a proxy given without a scheme is an http proxy.
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.text) ? found.text : `http://${found.text}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new UsageError(
      `Cannot use ${found.variable}=${JSON.stringify(hideCredentials(found.text))}: it is not an http(s) proxy URL; give one like http://proxy.example:3128`,
    );
  }
  return { url, variable: found.variable };
}

/** Whether a URL is exempt from the proxy by `NO_PROXY`. */
function noProxyMatcher(list: string): (url: URL) => boolean {
  const entries = list
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  if (entries.includes("*")) return () => true;
  const ranges = new BlockList();
  const names: { host: string; port: string | undefined }[] = [];
  for (const entry of entries) {
    const cidr = /^([0-9a-f.:]+)\/(\d{1,3})$/.exec(entry);
    const family = cidr ? isIP(cidr[1] ?? "") : 0;
    if (cidr && family !== 0) {
      ranges.addSubnet(cidr[1] ?? "", Number(cidr[2]), family === 6 ? "ipv6" : "ipv4");
      continue;
    }
    const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      names.push({ host: bracketed[1] ?? "", port: bracketed[2] });
      continue;
    }
    const hostPort = /^(.*?)(?::(\d+))?$/.exec(entry);
    const host = (hostPort?.[1] ?? entry).replace(/^\*?\./, "");
    if (isIP(entry) === 6) names.push({ host: entry, port: undefined });
    else names.push({ host, port: hostPort?.[2] });
  }
  return (url) => {
    const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const family = isIP(host);
    if (family !== 0 && ranges.check(host, family === 6 ? "ipv6" : "ipv4")) return true;
    return names.some(
      (n) => (n.port === undefined || n.port === port) && (host === n.host || host.endsWith(`.${n.host}`)),
    );
  };
}
