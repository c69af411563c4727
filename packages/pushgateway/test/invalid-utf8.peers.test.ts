// Label values that are not UTF-8 and a label name twice in a protobuf series, ours beside Debian's
// prometheus-pushgateway 1.5.1: both refuse each push with
// 400, the text parser's message identical, client_golang's naming the same label and bytes. Upstream then keeps a
// group whose grouping labels are not UTF-8 and fails every later push; ours stores nothing (invalid-utf8.test.ts).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROTOBUF_TYPE, protobufWithLabels, protobufWithLabelValue } from "./support/invalid-utf8.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";

let dir: string;
let ours: string;
let peer: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "pgw-utf8-"));
  [{ base: ours }, { base: peer }] = await Promise.all([
    startGateway(),
    startPeerGateway([`--persistence.file=${join(dir, "peer.data")}`]),
  ]);
});
after(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

type Answer = { status: number; text: string };
const answer = async (base: string, path: string, init: RequestInit): Promise<Answer> => {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, text: await res.text() };
};
const both = async (path: string, init: RequestInit): Promise<[Answer, Answer]> => [
  await answer(ours, path, init),
  await answer(peer, path, init),
];

test("text body: the same 400 and message", async () => {
  const body = Buffer.concat([Buffer.from('m{a="x'), Buffer.from([0xff]), Buffer.from('"} 1\n')]);
  const [o, p] = await both("/metrics/job/text", { method: "PUT", body });
  assert.deepEqual(o, p);
  assert.equal(p.text, 'text format parsing error in line 1: invalid label value "x\\xff"\n');
});

test("protobuf body: 400 from both, naming the label and its bytes", async () => {
  const [o, p] = await both("/metrics/job/pb", {
    method: "PUT",
    headers: { "Content-Type": PROTOBUF_TYPE },
    body: protobufWithLabelValue(Uint8Array.from([0xff])),
  });
  assert.equal(o.status, 400);
  assert.equal(p.status, 400);
  const tail = /has a label named "a" whose value is not utf8: "\\xff"\n$/;
  assert.match(o.text, tail);
  assert.match(p.text, tail);
});

test("grouping label from @base64: 400 from both, each series named", async () => {
  const [o, p] = await both("/metrics/job/j/l@base64/_w", { method: "POST", body: "m 1\n" });
  assert.equal(o.status, 400);
  assert.equal(p.status, 400);
  for (const text of [o.text, p.text]) {
    assert.match(
      text,
      /^pushed metrics are invalid or inconsistent with existing metrics: 3 error\(s\) occurred:/,
    );
    assert.match(
      text,
      /\* collected metric "m" \{ .*\} has a label named "l" whose value is not utf8: "\\xff"/,
    );
  }
});

test("protobuf series with a label name twice: the same 400 from both", async () => {
  const [o, p] = await both("/metrics/job/dup", {
    method: "PUT",
    headers: { "Content-Type": PROTOBUF_TYPE },
    body: protobufWithLabels([
      ["a", Buffer.from("x")],
      ["a", Buffer.from("y")],
    ]),
  });
  assert.equal(o.status, 400);
  assert.equal(p.status, 400);
  const error = /collected metric "pm" \{ .*\} has two or more labels with the same name: a\n$/;
  assert.match(o.text, error);
  // The peer also lists the group the @base64 case above left in it (upstream keeps such a group), in an order
  // that changes from run to run (client_golang gathers concurrently): the line is looked for among the others.
  assert.match(p.text, /^\* collected metric "pm" \{ .*\} has two or more labels with the same name: a$/m);
});
