// `-ip` and `-port` as upstream hands them to Go: net.Listen("tcp", fmt.Sprintf("%s:%d", ip, port)) (webhook.go).
// So the address is split as Go's net.SplitHostPort splits it (an IPv6 address needs brackets: `-ip [::1]`; a bare
// `-ip ::1` has too many colons), an empty host listens on every address, a host that is not an IP address Go
// would parse is looked up as a name (its first IPv4 address is taken), and errors read as Go's.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ListenError } from "../errors.js";

/** Where to listen: `host` undefined for every address; `display` as Go's TCPAddr prints it (errors name it). */
export interface ListenAddress {
  readonly host: string | undefined;
  readonly port: number;
  readonly display: string;
}

/** A name's addresses (node's dns.lookup with `all`), injectable for tests. */
export type Lookup = (host: string) => Promise<readonly { address: string; family: number }[]>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true });

/**
 * Resolves `-ip` and `-port` to an address to listen on.
 *
 * @throws {ListenError} with Go's words (`listen tcp: address ::1:9000: too many colons in address`,
 *   `listen tcp: lookup example.invalid: no such host`)
 */
export async function listenAddress(
  ip: string,
  port: number | bigint,
  lookup: Lookup = systemLookup,
): Promise<ListenAddress> {
  const host = splitHost(`${ip}:${port}`);
  if (!(typeof port === "number" && port >= 0 && port < 65536))
    throw new ListenError(`listen tcp: address ${port}: invalid port`);
  if (host === "") return { host: undefined, port, display: `:${port}` };
  // Go's ParseIP (after a zone, for IPv6) is as strict as node's isIP: no leading zeros, no short forms.
  const literal = isIP(host.replace(/%.*$/, "")) === 0 ? undefined : host;
  let address = literal;
  // glibc would read 127.1, 0 or 0x7f.1 as IPv4 addresses (inet_aton); Go looks them up as names, which fails.
  if (address === undefined && !/^[0-9][0-9a-fA-FxX.]*$/.test(host)) {
    const found = await lookup(host).catch(() => []);
    address = (found.find((a) => a.family === 4) ?? found[0])?.address;
  }
  if (address === undefined) throw new ListenError(`listen tcp: lookup ${host}: no such host`);
  return {
    host: address,
    port,
    display: address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`,
  };
}

/** net.SplitHostPort's host, or its error (the port, always Go's `%d` here, is checked apart). */
function splitHost(hostport: string): string {
  const fail = (why: string) => new ListenError(`listen tcp: address ${hostport}: ${why}`);
  const i = hostport.lastIndexOf(":");
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport[0] === "[") {
    const end = hostport.indexOf("]");
    if (end < 0) throw fail("missing ']' in address");
    if (end + 1 !== i)
      throw fail(hostport[end + 1] === ":" ? "too many colons in address" : "missing port in address");
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) throw fail("too many colons in address");
  }
  if (hostport.slice(j).includes("[")) throw fail("unexpected '[' in address");
  if (hostport.slice(k).includes("]")) throw fail("unexpected ']' in address");
  return host;
}
