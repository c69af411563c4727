import assert from "node:assert/strict";
import { test } from "node:test";
import { ListenError } from "../errors.js";
import { listenAddress } from "./listen-address.js";

// What Debian's webhook 2.8.0 answered, checked side by side (test/startup-fuzz.peers.test.ts).
const names = async (host: string) =>
  host === "localhost"
    ? [
        { address: "::1", family: 6 },
        { address: "127.0.0.1", family: 4 },
      ]
    : [];

const refusal = (ip: string, port: number | bigint, message: string) =>
  assert.rejects(
    listenAddress(ip, port, names),
    (e: unknown) => e instanceof ListenError && e.message === message,
    `${ip} ${port}`,
  );

test("-ip and -port are split as Go's net.SplitHostPort splits ip:port", async () => {
  assert.deepEqual(await listenAddress("[::1]", 9000, names), {
    host: "::1",
    port: 9000,
    display: "[::1]:9000",
  });
  assert.deepEqual(await listenAddress("[127.0.0.1]", 1, names), {
    host: "127.0.0.1",
    port: 1,
    display: "127.0.0.1:1",
  });
  assert.deepEqual(await listenAddress("", 9000, names), { host: undefined, port: 9000, display: ":9000" });
  await refusal("::1", 9000, "listen tcp: address ::1:9000: too many colons in address");
  await refusal("[::1", 9000, "listen tcp: address [::1:9000: missing ']' in address");
  await refusal("[::1]x", 9000, "listen tcp: address [::1]x:9000: missing port in address");
  await refusal("[a]:b", 9000, "listen tcp: address [a]:b:9000: too many colons in address");
  await refusal("a]b", 9000, "listen tcp: address a]b:9000: unexpected ']' in address");
  await refusal("a[b", 9000, "listen tcp: address a[b:9000: unexpected '[' in address");
  // The split comes first, then the port, then the name.
  await refusal("::1", 70000, "listen tcp: address ::1:70000: too many colons in address");
  await refusal("nowhere", -1, "listen tcp: address -1: invalid port");
  await refusal("127.0.0.1", 9223372036854775807n, "listen tcp: address 9223372036854775807: invalid port");
});

test("a host that is no IP address Go parses is a name: its first IPv4 address, or Go's lookup error", async () => {
  assert.deepEqual(await listenAddress("localhost", 80, names), {
    host: "127.0.0.1",
    port: 80,
    display: "127.0.0.1:80",
  });
  await refusal("nowhere", 80, "listen tcp: lookup nowhere: no such host");
  // glibc's inet_aton forms, which getaddrinfo would take as addresses.
  for (const ip of ["127.1", "0", "2130706433", "0x7f.1", "127.0.0.01"])
    await refusal(ip, 80, `listen tcp: lookup ${ip}: no such host`);
});
