// Fidelity beside Debian's prometheus-pushgateway 1.5.1: histogram buckets listed by
// /api/v1/metrics as pushed, and --web.listen-address given more than once.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { PEER_GATEWAY, startPeerGateway } from "./support/peers.js";
import { freePort, GATEWAY_BIN, startProcess, stop, stopAll } from "./support/processes.js";

after(stopAll);

test("/api/v1/metrics lists a histogram pushed without +Inf with its buckets as pushed; the text scrape adds it; as 1.5.1", async () => {
  const [peer, ours] = await Promise.all([
    startPeerGateway(),
    startProcess(process.execPath, [GATEWAY_BIN, `--web.listen-address=127.0.0.1:${await freePort()}`], {
      ready: /Listening on" address=(\S+)/,
    }),
  ]);
  const oursBase = `http://${/Listening on" address=(\S+)/.exec(ours.log())?.[1]}`;
  const body =
    '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="5"} 3\nh_sum 7\nh_count 3\n# TYPE full histogram\nfull_bucket{le="1"} 1\nfull_bucket{le="+Inf"} 4\nfull_sum 2\nfull_count 4\n';
  const seen: Record<string, unknown>[] = [];
  const scraped: string[] = [];
  for (const base of [peer.base, oursBase]) {
    assert.equal((await fetch(`${base}/metrics/job/h`, { method: "PUT", body })).status, 200);
    const api = (await (await fetch(`${base}/api/v1/metrics`)).json()) as {
      data: Record<string, { metrics: { buckets: unknown; count: string; sum: string }[] }>[];
    };
    const group = api.data[0] ?? {};
    seen.push({ h: group.h?.metrics, full: group.full?.metrics });
    scraped.push(
      (await (await fetch(`${base}/metrics`)).text())
        .split("\n")
        .filter((l) => /^(h|full)_/.test(l))
        .join("\n"),
    );
  }
  const [peerSeen, oursSeen] = seen;
  assert.deepEqual((peerSeen?.h as { buckets: unknown }[] | undefined)?.[0]?.buckets, { "1": "2", "5": "3" });
  assert.deepEqual(oursSeen, peerSeen);
  assert.match(scraped[0] ?? "", /^h_bucket\{instance="",job="h",le="\+Inf"\} 3$/m);
  assert.equal(scraped[1], scraped[0]);
});

test("--web.listen-address given twice: both addresses serve and the status API lists both, as 1.5.1", async () => {
  const flags: unknown[] = [];
  for (const command of [PEER_GATEWAY, process.execPath]) {
    const [a, b] = [await freePort(), await freePort()];
    const args = [`--web.listen-address=127.0.0.1:${a}`, `--web.listen-address=127.0.0.1:${b}`];
    const started = await startProcess(
      command,
      command === PEER_GATEWAY ? [...args, "--persistence.file="] : [GATEWAY_BIN, ...args],
      { ready: /Listening on(.|\n)*Listening on/ },
    );
    for (const port of [a, b])
      assert.equal((await fetch(`http://127.0.0.1:${port}/-/healthy`)).status, 200, `${command} :${port}`);
    const status = (await (await fetch(`http://127.0.0.1:${a}/api/v1/status`)).json()) as {
      data: { flags: Record<string, string> };
    };
    flags.push(
      status.data.flags["web.listen-address"]?.replaceAll(String(a), "A").replaceAll(String(b), "B"),
    );
    await stop(started.child);
  }
  assert.equal(flags[1], flags[0]);
});
