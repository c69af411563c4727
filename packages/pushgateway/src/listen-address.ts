// A --web.listen-address as Go's net.Listen("tcp", address) reads it (net/ipsock.go SplitHostPort, then the port as
// lookup.go parses it, named ports as the pure-Go resolver refuses them), so a bad one is refused with Go's words,
// `listen tcp: address bogus: missing port in address`, rather than node's `options.port should be >= 0 and < 65536`.

/** Go's net.SplitHostPort: host and port, or the reason it is not an address. */
export function splitHostPort(address: string): { host: string; port: string } | { error: string } {
  const fail = (why: string) => ({ error: why });
  const i = address.lastIndexOf(":");
  if (i < 0) return fail("missing port in address");
  let host: string;
  let j = 0;
  let k = 0;
  if (address.startsWith("[")) {
    const end = address.indexOf("]");
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === address.length) return fail("missing port in address");
    if (end + 1 !== i)
      return fail(address[end + 1] === ":" ? "too many colons in address" : "missing port in address");
    host = address.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = address.slice(0, i);
    if (host.includes(":")) return fail("too many colons in address");
  }
  if (address.slice(j).includes("[")) return fail("unexpected '[' in address");
  if (address.slice(k).includes("]")) return fail("unexpected ']' in address");
  return { host, port: address.slice(i + 1) };
}

/**
 * Where to listen for a `--web.listen-address`: an empty host is every address (`::`), an empty port any free one,
 * as Go's; otherwise Go's error text.
 */
export function listenAddress(address: string): { host: string; port: number } | string {
  const split = splitHostPort(address);
  if ("error" in split) return `listen tcp: address ${address}: ${split.error}`;
  const { host, port } = split;
  if (!/^[+-]?\d*$/.test(port)) return `listen tcp: address tcp/${port}: unknown port`;
  const n = port === "" || port === "+" || port === "-" ? 0 : Number(port);
  if (n < 0 || n > 0xffff) return `listen tcp: address ${port}: invalid port`;
  return { host: host === "" ? "::" : host, port: n };
}
