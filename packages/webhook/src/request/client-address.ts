import { BlockList, isIP } from "node:net";

/**
 * `-trusted-proxies` (beyond upstream; adnanh/webhook#505, #152): the proxies whose forwarding headers say who the
 * client is. Behind a reverse proxy every connection comes from the proxy; only when it does is the client taken
 * from `X-Forwarded-For` or RFC 7239 `Forwarded`, the rightmost address that is not itself a trusted proxy (the
 * entries left of it were written by whoever connected first, and may be forged). From any other peer the headers
 * change nothing, and a header that cannot be read with certainty leaves the socket's address.
 */
export class TrustedProxies {
  readonly #list = new BlockList();

  /** @param ranges CIDRs or bare addresses, as {@link parseTrustedProxies} checked them */
  constructor(ranges: readonly string[]) {
    for (const range of ranges) {
      const [base = "", bits] = range.split("/");
      const type = isIP(base) === 6 ? "ipv6" : "ipv4";
      if (bits === undefined) this.#list.addAddress(base, type);
      else this.#list.addSubnet(base, Number(bits), type);
    }
  }

  /** Whether `address` (an IP, without port) is one of the trusted proxies. */
  trusts(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.#list.check(address, family === 6 ? "ipv6" : "ipv4");
  }

  /**
   * The client's address: `remoteAddr` (Go's `host:port` of the socket) unless the socket's peer is trusted and
   * its forwarding headers name the client, then that address alone, without a port (IPv6 without brackets).
   * With both headers present they must agree; a proxy that sets one passes on a forged other unchanged.
   *
   * @param headers every value of each header, under its lower-cased name
   */
  clientAddress(remoteAddr: string, headers: Readonly<Record<string, readonly string[]>>): string {
    const peer = hostOf(remoteAddr);
    if (peer === undefined || !this.trusts(peer)) return remoteAddr;
    const xff = headers["x-forwarded-for"];
    const forwarded = headers.forwarded;
    const fromXff = xff === undefined ? undefined : this.#rightmostUntrusted(splitList(xff.join(",")));
    const fromForwarded =
      forwarded === undefined ? undefined : this.#rightmostUntrusted(forwardedFor(forwarded));
    if (xff !== undefined && forwarded !== undefined) {
      return fromXff !== undefined && fromXff === fromForwarded ? fromXff : remoteAddr;
    }
    return fromXff ?? fromForwarded ?? remoteAddr;
  }

  /** The rightmost entry that is not a trusted proxy (all trusted: the leftmost); undefined if one read is not an IP. */
  #rightmostUntrusted(entries: readonly (string | undefined)[] | undefined): string | undefined {
    if (entries === undefined || entries.length === 0) return undefined;
    for (let i = entries.length - 1; i >= 0; i--) {
      const address = entries[i];
      if (address === undefined) return undefined;
      if (!this.trusts(address) || i === 0) return address;
    }
    return undefined;
  }
}

/**
 * `-trusted-proxies`: comma-separated CIDRs (`10.0.0.0/8`) or addresses (`127.0.0.1`, `::1`); spaces around
 * entries are allowed.
 *
 * @returns the entries, or the text saying what is wrong with the first bad one
 */
export function parseTrustedProxies(text: string): string[] | { error: string } {
  const ranges: string[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const [base = "", bits, extra] = entry.split("/");
    const family = isIP(base);
    const max = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !validBits || extra !== undefined) {
      return { error: `${JSON.stringify(entry)} is not an IP address or CIDR (as 10.0.0.0/8 or ::1)` };
    }
    ranges.push(entry);
  }
  if (ranges.length === 0) return { error: "no address or CIDR given (as 127.0.0.1,10.0.0.0/8)" };
  return ranges;
}

/** The IP of Go's `host:port` RemoteAddr (an IPv4-mapped IPv6 address as IPv4); undefined for a Unix socket's peer. */
function hostOf(remoteAddr: string): string | undefined {
  const host = remoteAddr.startsWith("[")
    ? remoteAddr.slice(1, remoteAddr.indexOf("]"))
    : remoteAddr.slice(0, remoteAddr.lastIndexOf(":"));
  return isIP(host) === 0 ? undefined : unmapped(host);
}

/** `::ffff:192.0.2.1` as `192.0.2.1`, so one CIDR list serves dual-stack listeners. */
function unmapped(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return v4 ?? address;
}

/** One node of either header as an IP: `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1`, `[2001:db8::1]:8080`. */
function nodeAddress(text: string): string | undefined {
  // No zone (`fe80::1%eth0`, `2001:db8::1%25x`): RFC 7239's node and Go's net.ParseIP have none, and node's isIP
  // would take one, putting the text after `%` into rules, `remote-addr` and the log.
  if (text.includes("%")) return undefined;
  let host = text;
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end < 0 || !/^(:\d{1,5})?$/.test(host.slice(end + 1))) return undefined;
    host = host.slice(1, end);
    return isIP(host) === 6 ? unmapped(host) : undefined;
  }
  if (isIP(host) !== 0) return unmapped(host);
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d{1,5}$/.exec(host)?.[1];
  return v4 !== undefined && isIP(v4) === 4 ? v4 : undefined;
}

/** `X-Forwarded-For`'s entries as addresses (undefined where one is not an address). */
function splitList(text: string): (string | undefined)[] {
  return text.split(",").map((entry) => nodeAddress(entry.trim()));
}

/**
 * The `for=` node of each element of RFC 7239 `Forwarded` (all its header lines, in order); undefined for an
 * element without `for`, an `unknown` or obfuscated node, or anything that does not follow the grammar (§4: a
 * list of `;`-separated `token=value` pairs, values a token or a quoted-string).
 */
function forwardedFor(lines: readonly string[]): (string | undefined)[] | undefined {
  const out: (string | undefined)[] = [];
  const text = lines.join(",");
  const pair = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)|"((?:[^"\\]|\\.)*)")\s*/y;
  let at = 0;
  let node: string | undefined;
  let sawFor = false;
  while (at <= text.length) {
    pair.lastIndex = at;
    const m = pair.exec(text);
    if (m === null) return undefined;
    at = pair.lastIndex;
    const name = (m[1] as string).toLowerCase();
    const value = m[2] ?? (m[3] as string).replace(/\\(.)/g, "$1");
    if (name === "for") {
      if (sawFor) return undefined;
      sawFor = true;
      node = nodeAddress(value);
    }
    const next = text[at];
    if (next === ";") {
      at++;
      continue;
    }
    out.push(sawFor ? node : undefined);
    node = undefined;
    sawFor = false;
    if (next === undefined) return out;
    if (next !== ",") return undefined;
    at++;
  }
  return out;
}
