// Label values must be valid UTF-8, as upstream requires (prometheus/common's text parser, client_golang's Gather):
// a push carrying other bytes is refused with upstream's message quoting them, and nothing is stored altered. The
// same pushes beside Debian's 1.5.1: invalid-utf8.peers.test.ts.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PROTOBUF_TYPE, protobufWithLabels, protobufWithLabelValue } from "./support/invalid-utf8.js";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);
let base: string;
before(async () => {
  ({ base } = await startGateway());
});

const pushed = async () =>
  (await (await fetch(`${base}/metrics`)).text()).split("\n").filter((l) => /job="/.test(l));

test("a text push with a label value that is not UTF-8: 400 with the parser's message, nothing stored", async () => {
  for (const [bytes, quoted] of [
    [[0xff], '"\\xff"'],
    [[0x61, 0xc3], '"a\\xc3"'],
    [[0xed, 0xa0, 0x80], '"\\xed\\xa0\\x80"'],
  ] as const) {
    const body = Buffer.concat([Buffer.from('m{a="'), Buffer.from(bytes), Buffer.from('"} 1\n')]);
    const res = await fetch(`${base}/metrics/job/text`, { method: "PUT", body });
    assert.equal(res.status, 400);
    assert.equal(await res.text(), `text format parsing error in line 1: invalid label value ${quoted}\n`);
  }
  // Valid UTF-8 around it is untouched: Greek letters and a 4-byte character.
  const ok = await fetch(`${base}/metrics/job/text`, { method: "PUT", body: 'm{a="Προμηθεύς 𝄞"} 1\n' });
  assert.equal(ok.status, 200);
  assert.deepEqual(
    (await pushed()).filter((l) => l.startsWith("m{")),
    ['m{a="Προμηθεύς 𝄞",instance="",job="text"} 1'],
  );
});

test("a protobuf push with such a label value: 400 with client_golang's message; the group records the failure", async () => {
  const res = await fetch(`${base}/metrics/job/pb`, {
    method: "PUT",
    headers: { "Content-Type": PROTOBUF_TYPE },
    body: protobufWithLabelValue(Uint8Array.from([0x78, 0xff])),
  });
  assert.equal(res.status, 400);
  const text = await res.text();
  assert.match(
    text,
    /^pushed metrics are invalid or inconsistent with existing metrics: collected metric "pm" \{ .*value:"x\\377".*\} has a label named "a" whose value is not utf8: "x\\xff"\n$/,
  );
  assert.ok(!(await pushed()).some((l) => l.startsWith("pm")), "nothing of the push is stored");
  // A value that really holds U+FFFD is valid UTF-8 and kept.
  const ok = await fetch(`${base}/metrics/job/pb`, {
    method: "PUT",
    headers: { "Content-Type": PROTOBUF_TYPE },
    body: protobufWithLabelValue(Buffer.from("x\uFFFD")),
  });
  assert.equal(ok.status, 200);
  assert.ok((await pushed()).includes('pm{a="x\uFFFD",instance="",job="pb"} 1'));
});

test("grouping labels that are not UTF-8 (%FF, @base64): 400 naming every series, and no group is created", async () => {
  for (const path of ["job/j%FF", "job@base64/_w", "job/j/l/%FF", "job/j/l@base64/_w"]) {
    const res = await fetch(`${base}/metrics/${path}`, { method: "POST", body: "m 1\n" });
    assert.equal(res.status, 400, path);
    const text = await res.text();
    assert.match(
      text,
      /^pushed metrics are invalid or inconsistent with existing metrics: 3 error\(s\) occurred:\n/,
    );
    for (const name of ["m", "push_time_seconds", "push_failure_time_seconds"])
      assert.match(
        text,
        new RegExp(
          `\\* collected metric "${name}" \\{ .*\\} has a label named "(job|l)" whose value is not utf8: "j?\\\\xff"`,
        ),
      );
  }
  const del = await fetch(`${base}/metrics/job/j%FF`, { method: "DELETE" });
  assert.equal(del.status, 202);
  const groups = (await (await fetch(`${base}/api/v1/metrics`)).json()) as {
    data: { labels: { job: string } }[];
  };
  assert.deepEqual(
    groups.data.map((g) => g.labels.job).filter((j) => j.startsWith("j")),
    [],
    "no group with such labels",
  );
  // With timestamps, upstream's timestamp check comes first (found by http-surface-fuzz beside 1.5.1); still no group.
  const stamped = await fetch(`${base}/metrics/job/j%FF`, { method: "POST", body: "m 1 1000\n" });
  assert.equal(stamped.status, 400);
  assert.equal(
    await stamped.text(),
    "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps\n",
  );
  const after = (await (await fetch(`${base}/api/v1/metrics`)).json()) as {
    data: { labels: { job: string } }[];
  };
  assert.deepEqual(
    after.data.map((g) => g.labels.job).filter((j) => j.startsWith("j")),
    [],
  );
  // A malformed escape is still refused by the HTTP layer, as Go's server refuses it.
  const malformed = await fetch(`${base}/metrics/job/j%zz`, { method: "POST", body: "m 1\n" });
  assert.equal(malformed.status, 400);
});

test("a protobuf series with a label name twice: 400 with client_golang's message, not stored with one value", async () => {
  const res = await fetch(`${base}/metrics/job/dup`, {
    method: "PUT",
    headers: { "Content-Type": PROTOBUF_TYPE },
    body: protobufWithLabels([
      ["a", Buffer.from("x")],
      ["a", Buffer.from("y")],
    ]),
  });
  assert.equal(res.status, 400);
  assert.match(
    await res.text(),
    /^pushed metrics are invalid or inconsistent with existing metrics: collected metric "pm" \{ .*\} has two or more labels with the same name: a\n$/,
  );
  assert.ok(!(await pushed()).some((l) => l.startsWith("pm{") && l.includes('job="dup"')));
});
