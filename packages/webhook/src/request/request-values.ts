import { isLosslessNumber } from "lossless-json";
import { ParameterNodeError, WebhookError } from "../errors.js";
import { goMarshal, renderValue } from "../go/json.js";
import type { Argument } from "../hooks/hook.js";

/** Everything a hook can read from one request, parsed once at the edge. */
export interface RequestData {
  readonly method: string;
  /** Peer address as `ip:port`. */
  readonly remoteAddr: string;
  /** Canonical header names (Go `CanonicalMIMEHeaderKey`) to their first value. */
  readonly headers: Record<string, unknown>;
  /** Query keys to their first value. */
  readonly query: Record<string, unknown>;
  /** The parsed body, when its content type was understood. */
  payload: Record<string, unknown> | undefined;
  readonly rawBody: Buffer;
}

const canonicalCache = new Map<string, string>();

/** Go's `textproto.CanonicalMIMEHeaderKey`: `x-hub-signature-256` → `X-Hub-Signature-256`. */
export function canonicalHeaderKey(name: string): string {
  const cached = canonicalCache.get(name);
  if (cached !== undefined) return cached;
  const key = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)
    ? name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())
    : name;
  // Bounded, so a client sending endless distinct header names cannot grow it without limit.
  if (canonicalCache.size < 1024) canonicalCache.set(name, key);
  return key;
}

/**
 * The value of an argument as a string, as upstream's `Argument.Get` renders it.
 *
 * @throws {ParameterNodeError} when the referenced value does not exist
 */
export function getArgument(arg: Argument, data: RequestData): string {
  switch (arg.source) {
    case "header":
      return renderValue(getParameter(canonicalHeaderKey(arg.name), data.headers));
    case "url":
    case "query":
      return renderValue(getParameter(arg.name, data.query));
    case "payload":
      return renderValue(getParameter(arg.name, data.payload ?? {}));
    case "request":
      switch (arg.name.toLowerCase()) {
        case "method":
          return data.method;
        case "remote-addr":
          return data.remoteAddr;
        default:
          throw new WebhookError("WEBHOOK_SOURCE", `unsupported request key: ${arg.name}`);
      }
    case "string":
      return arg.name;
    case "raw-request-body":
      return data.rawBody.toString("utf8");
    case "entire-payload":
      return goMarshal(data.payload ?? null);
    case "entire-headers":
      return goMarshal(data.headers);
    case "entire-query":
      return goMarshal(data.query);
    default:
      throw new WebhookError("WEBHOOK_SOURCE", "no source for value retrieval");
  }
}

/** Upstream's `ArgumentError` text: the argument printed with Go's `%+v`. */
export function argumentError(a: Argument): string {
  return `couldn't retrieve argument for {Source:${a.source} Name:${a.name} EnvName:${a.envname} Base64Decode:${a.base64decode}}`;
}

/**
 * Upstream's `GetParameter`: at an object, the literal key first (so `"a.b"` beats the path), else split at the
 * first `.`; at an array, the next segment is a decimal index.
 *
 * @throws {ParameterNodeError} naming the part of the key not found
 */
export function getParameter(key: string, node: unknown): unknown {
  if (Array.isArray(node)) {
    const dot = key.indexOf(".");
    const head = dot < 0 ? key : key.slice(0, dot);
    if (!/^\d+$/.test(head) || Number(head) >= node.length) throw new ParameterNodeError(key);
    const item = node[Number(head)];
    return dot < 0 ? item : getParameter(key.slice(dot + 1), item);
  }
  if (typeof node === "object" && node !== null && !isLosslessNumber(node)) {
    const obj = node as Record<string, unknown>;
    if (Object.hasOwn(obj, key)) return obj[key];
    const dot = key.indexOf(".");
    if (dot >= 0) {
      const head = key.slice(0, dot);
      if (Object.hasOwn(obj, head)) return getParameter(key.slice(dot + 1), obj[head]);
    }
  }
  throw new ParameterNodeError(key);
}
