// Migration both ways beside Debian's prometheus-pushgateway 1.5.1: push to 1.5.1 with
// persistence, stop it, start ours on its file (everything there, push times included); push to ours, stop it, start
// 1.5.1 on the file ours wrote (everything there).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stop, stopAll } from "./support/processes.js";
import { withTempDir } from "./support/temp-dir.js";

after(stopAll);

/** The scrape's pushed families (no gateway's own ones), and each family's push time from the API. */
async function contents(base: string): Promise<{ scrape: string; times: Record<string, string> }> {
  const scrape = (await (await fetch(`${base}/metrics`)).text())
    .split("\n")
    .filter((l) => l !== "" && !/^(# (HELP|TYPE) )?(go_|process_|pushgateway_|promhttp_)/.test(l))
    .join("\n");
  const api = (await (await fetch(`${base}/api/v1/metrics`)).json()) as {
    data: Record<string, { time_stamp?: string }>[];
  };
  const times: Record<string, string> = {};
  for (const group of api.data)
    for (const [name, family] of Object.entries(group)) {
      // Go's API prints nanoseconds; ours keeps milliseconds (Date): compared to the millisecond.
      if (family && typeof family === "object" && "time_stamp" in family && family.time_stamp)
        times[`${JSON.stringify(group.labels)} ${name}`] = new Date(
          Math.floor(Date.parse(family.time_stamp.replace(/(\.\d{3})\d*Z$/, "$1Z"))),
        ).toISOString();
    }
  return { scrape, times };
}

const PUSHES: readonly [string, "PUT" | "POST", string][] = [
  [
    "/metrics/job/batch/instance/host1",
    "PUT",
    '# HELP jobs_done Jobs finished.\n# TYPE jobs_done counter\njobs_done{queue="a b"} 42\n# TYPE lat summary\nlat{quantile="0.5"} 0.25\nlat_sum 12.5\nlat_count 50\n# TYPE size histogram\nsize_bucket{le="0.5"} 1\nsize_bucket{le="10"} 3\nsize_sum 7\nsize_count 3\n',
  ],
  ["/metrics/job/other/path@base64/L3RtcA", "POST", 'last_run{stage="ü"} -Inf\n'],
  // Refused (a counter/gauge clash): the group's failure time is set.
  ["/metrics/job/other/path@base64/L3RtcA", "POST", "# TYPE jobs_done gauge\njobs_done 1\n"],
];

async function push(base: string, pushes: typeof PUSHES): Promise<void> {
  for (const [path, method, body] of pushes) await fetch(`${base}${path}`, { method, body });
}

test("from 1.5.1 to ours and back: every family, push and failure time survives each move", async () => {
  await withTempDir("pg-migrate-", async (dir) => {
    const file = join(dir, "pushgateway.data");
    // 1.5.1 writes its file, ours starts on it.
    const peer = await startPeerGateway([`--persistence.file=${file}`]);
    await push(peer.base, PUSHES);
    const fromPeer = await contents(peer.base);
    assert.match(
      fromPeer.scrape,
      /^push_failure_time_seconds\{instance="",job="other",path="\/tmp"\} 1\.\d+e\+09$/m,
    );
    await stop(peer.child);
    const ours = await startGateway([`--persistence.file=${file}`]);
    assert.deepEqual(await contents(ours.base), fromPeer);
    // Ours adds a group and writes the file; 1.5.1 starts on it.
    await push(ours.base, [["/metrics/job/added", "PUT", "# TYPE added gauge\nadded 5\n"]]);
    const fromOurs = await contents(ours.base);
    assert.match(fromOurs.scrape, /^added\{instance="",job="added"\} 5$/m);
    await stop(ours.child);
    const back = await startPeerGateway([`--persistence.file=${file}`]);
    const again = await contents(back.base);
    assert.equal(again.scrape, fromOurs.scrape);
    assert.deepEqual(again.times, fromOurs.times);
    // And 1.5.1 finds the groups it got from ours: a push to one replaces it rather than adding a second.
    await push(back.base, [["/metrics/job/added", "PUT", "# TYPE added gauge\nadded 6\n"]]);
    const after = (await contents(back.base)).scrape;
    assert.match(after, /^added\{instance="",job="added"\} 6$/m);
    assert.doesNotMatch(after, /^added\{instance="",job="added"\} 5$/m);
    await stop(back.child);
  });
});
