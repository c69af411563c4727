// Command lines Debian's prometheus-pushgateway refuses (kingpin: a value on a bool flag, short flags, Go duration
// and URL errors): ours refuses the same ones, exit 1, with the same `error:` line. Kept apart: `--persistence.interval`
// with `d`/`w` units, which 1.5.1's time.ParseDuration refuses and upstream 1.11's kingpin v2.4 (str2duration) takes.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { PEER_GATEWAY, startPeerGateway } from "./support/peers.js";
import { freePort, GATEWAY_BIN, startGateway, stop, stopAll } from "./support/processes.js";
import { runUntilExit } from "./support/run-until-exit.js";

after(stopAll);

const REFUSED = [
  ["--web.enable-admin-api=true"],
  ["--web.enable-lifecycle=false"],
  ["-x"],
  ["-h2"],
  ["--persistence.interval=abc"],
  ["--persistence.interval=5"],
  ["--persistence.interval=1x"],
  ["--persistence.interval="],
  ["--web.external-url=:bad"],
  ["--web.external-url=http://a/%zz"],
  ["--web.external-url=1a:b"],
];

/** The `error:` line without the program's name. */
const errorLine = (log: string) => /error: .*/.exec(log)?.[0];

for (const argv of REFUSED) {
  test(`refused as the peer refuses it: ${argv.join(" ")}`, async () => {
    const listen = `--web.listen-address=127.0.0.1:${await freePort()}`;
    const [peer, ours] = await Promise.all([
      runUntilExit(PEER_GATEWAY, ["--persistence.file=", listen, ...argv]),
      runUntilExit(process.execPath, [GATEWAY_BIN, listen, ...argv]),
    ]);
    assert.equal(peer.code, 1, peer.log);
    assert.equal(peer.listened, false);
    assert.equal(ours.code, 1, ours.log);
    assert.equal(ours.listened, false);
    assert.ok(errorLine(peer.log) !== undefined, peer.log);
    assert.equal(errorLine(ours.log), errorLine(peer.log));
  });
}

test("accepted as the peer accepts them: --web.external-url=foo, a negative and a fractional interval", async () => {
  for (const argv of [
    ["--web.external-url=foo"],
    ["--persistence.interval=-1s"],
    ["--persistence.interval=1.5h"],
  ]) {
    const listen = async () => `--web.listen-address=127.0.0.1:${await freePort()}`;
    const peer = await runUntilExit(PEER_GATEWAY, ["--persistence.file=", await listen(), ...argv]);
    const ours = await runUntilExit(process.execPath, [GATEWAY_BIN, await listen(), ...argv]);
    assert.equal(peer.listened, true, `${argv}: ${peer.log}`);
    assert.equal(ours.listened, true, `${argv}: ${ours.log}`);
    assert.equal(ours.code, 0, ours.log);
  }
});

// 1.5.1 and upstream log the failed listen and exit 0 (start-errors.peers.test.ts); ours exits 1 (README), with Go's
// words for the address.
for (const address of ["bogus", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:nope", "a:b:c", "[::1"]) {
  test(`a bad --web.listen-address=${address} is refused in Go's words`, async () => {
    const argv = [`--web.listen-address=${address}`];
    const [peer, ours] = await Promise.all([
      runUntilExit(PEER_GATEWAY, ["--persistence.file=", ...argv]),
      runUntilExit(process.execPath, [GATEWAY_BIN, ...argv]),
    ]);
    const peerError = /msg="HTTP server stopped" err="(.*)"$/m.exec(peer.log)?.[1];
    assert.ok(peerError !== undefined, peer.log);
    assert.equal(ours.code, 1);
    assert.match(
      ours.log,
      new RegExp(`level=error msg="Error listening: ${peerError.replace(/[[\]().*+?^$]/g, "\\$&")}"`),
    );
  });
}

// main.go assigns computeRoutePrefix's result back to the flag, so the status API shows the prefix in effect.
test("/api/v1/status shows the route prefix in effect, as the peer does", async () => {
  for (const [args, prefix] of [
    [["--web.route-prefix=foo/"], "/foo"],
    [["--web.external-url=http://gw.example.org/bar/"], "/bar"],
  ] as const) {
    const [peer, ours] = await Promise.all([startPeerGateway([...args]), startGateway([...args])]);
    const flag = async (base: string) => {
      const doc = (await (await fetch(`${base}${prefix}/api/v1/status`)).json()) as {
        data: { flags: Record<string, string> };
      };
      return doc.data.flags["web.route-prefix"];
    };
    assert.equal(await flag(peer.base), prefix);
    assert.equal(await flag(ours.base), prefix);
    await Promise.all([stop(peer.child), stop(ours.child)]);
  }
});

// exporter-toolkit logs the listener's Addr().String(): Go joins an IPv6 host in brackets.
test("the listening address is logged as Go writes it: [::]:port for every interface", async () => {
  const logged = async (command: string, args: string[]) => {
    const r = await runUntilExit(command, [...args, `--web.listen-address=:${await freePort()}`]);
    return /msg="Listening on" address=(\S+)/.exec(r.log)?.[1]?.replace(/\d+$/, "PORT");
  };
  const peer = await logged(PEER_GATEWAY, ["--persistence.file="]);
  assert.equal(peer, "[::]:PORT");
  assert.equal(await logged(process.execPath, [GATEWAY_BIN]), peer);
});
