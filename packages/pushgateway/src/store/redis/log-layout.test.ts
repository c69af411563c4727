import assert from "node:assert/strict";
import { test } from "node:test";
import type { MetricFamily } from "../../exposition/metric-family.js";
import { MemoryStore } from "../memory-store.js";
import { preparePush } from "../prepared-push.js";
import {
  appendArgs,
  appendResult,
  decodeOp,
  decodeSnapshot,
  encodeOp,
  encodeSnapshot,
  entrySeq,
  expireArgs,
  type LogOp,
  redisKeys,
  seedArgs,
  snapshotArgs,
} from "./log-layout.js";

const families: MetricFamily[] = [
  {
    name: "a",
    help: "NaN",
    type: "gauge",
    metrics: [
      { labels: [["x", "Infinity"]], value: Number.NaN },
      { labels: [["x", "\u0000s:kept"]], value: Number.POSITIVE_INFINITY },
      { labels: [["x", 'q","families":']], value: Number.NEGATIVE_INFINITY },
    ],
  },
];
const push: LogOp = {
  kind: "push",
  origin: "r1:7",
  labels: { job: "j", instance: "NaN" },
  families,
  replace: true,
  nowMs: 1_700_000_000_123,
  check: true,
};

test("redisKeys() puts every key under one hash tag, so a script's keys share a cluster slot", () => {
  assert.deepEqual(redisKeys(), {
    epoch: "{pushgateway}:epoch",
    seq: "{pushgateway}:seq",
    log: "{pushgateway}:log",
    snapshot: "{pushgateway}:snapshot",
    alivePrefix: "{pushgateway}:alive:",
    expiringPrefix: "{pushgateway}:expiring:",
    settling: "{pushgateway}:settling",
  });
  assert.equal(redisKeys("gw2").log, "{gw2}:log");
});

test("encodeOp() round-trips NaN, infinities and strings that look like them", () => {
  const back = decodeOp(encodeOp(push));
  assert.deepEqual(back, push);
  const value = (back as LogOp & { kind: "push" }).families[0]?.metrics[0]?.value;
  assert.ok(Number.isNaN(value));
});

const rendered: LogOp & { kind: "rendered-push" } = {
  kind: "rendered-push",
  origin: "r1:8",
  labels: { job: "j", instance: "" },
  replace: false,
  nowMs: 1_700_000_000_124,
  check: true,
  invalid: { family: 1, message: 'collected metric "b" { ...} has a label with an invalid name: 0x' },
  families: preparePush({ labels: { job: "j" }, families }).rendered.map((f) => ({
    ...f,
    protoValues: f.keys.map((_k, i) => (i === 1 ? '{"counter":{"value":1}}' : undefined)),
  })),
};

test("a rendered push round-trips: series keys (NULs inside), absent protobuf values, the verdict", () => {
  const back = decodeOp(encodeOp(rendered));
  assert.deepEqual(back, rendered);
  const family = (back as typeof rendered).families[0];
  assert.ok(family?.keys[0]?.includes("\u0000"));
  assert.equal(family?.protoValues?.[0], undefined);
});

test("a rendered push without marks is plain JSON although its series keys hold NULs", () => {
  const { invalid: _invalid, ...valid } = rendered;
  const plain: LogOp = {
    ...valid,
    families: preparePush({
      labels: { job: "j" },
      families: [{ name: "p", help: "h", type: "gauge", metrics: [{ labels: [["x", "y"]], value: 1.5 }] }],
    }).rendered,
  };
  const text = encodeOp(plain);
  assert.ok(text.includes("\\u0000"), text);
  assert.equal(text, JSON.stringify(plain));
  assert.deepEqual(decodeOp(text), plain);
  // A string that starts with a NUL still gets its mark.
  const led: LogOp = { ...plain, labels: { job: "\u0000x" } };
  assert.deepEqual(decodeOp(encodeOp(led)), led);
  assert.notEqual(encodeOp(led), JSON.stringify(led));
});

test("encodeOp() writes a push's families last; decodeOp() with families does not parse them", () => {
  const text = encodeOp(rendered);
  assert.ok(text.startsWith('{"kind":"rendered-push","origin":"r1:8",'), text.slice(0, 40));
  assert.ok(text.indexOf('"families":') > text.indexOf('"invalid":'));
  const held = preparePush({ labels: {}, families: [] }).rendered;
  const back = decodeOp(text, { families: held }) as typeof rendered;
  assert.equal(back.families, held);
  assert.deepEqual({ ...back, families: [] }, { ...rendered, families: [] });
  // An entry of the earlier format is parsed whole: its families are not the ones held.
  assert.deepEqual(decodeOp(encodeOp(push), { families: held }), push);
});

test("decodeOp() refuses an entry another program wrote", () => {
  assert.throws(() => decodeOp('{"kind":"other"}'), /not a pushgateway log entry/);
  assert.throws(() => decodeOp("null"), /not a pushgateway log entry/);
});

test("encodeOp() round-trips bigints and strings that look like its markers", () => {
  const op = { ...push, labels: { job: "\u0000n:5" }, extra: 2n ** 64n } as unknown as LogOp;
  assert.deepEqual(decodeOp(encodeOp(op)), op);
});

test("an op with nothing to mark is plain JSON; words near the marks' triggers still round-trip", () => {
  const plain: LogOp = {
    ...push,
    labels: { job: "j" },
    families: [{ name: "p", help: "h", type: "gauge", metrics: [{ labels: [["x", "y"]], value: 1.5 }] }],
  };
  const text = encodeOp(plain);
  assert.deepEqual(JSON.parse(text), plain);
  assert.deepEqual(decodeOp(text), plain);
  const nearMisses: LogOp = {
    ...plain,
    labels: { job: "null", instance: "xInfinity" },
    families: [
      {
        name: "n",
        help: 'say "NaN"',
        type: "gauge",
        metrics: [{ labels: [["x", "a\u0000b"]], value: 0 }],
      },
    ],
  };
  assert.deepEqual(decodeOp(encodeOp(nearMisses)), nearMisses);
});

test("delete and wipe ops round-trip", () => {
  const ops: LogOp[] = [
    { kind: "delete", origin: "r2:1", labels: { job: "j" }, nowMs: 5 },
    { kind: "wipe", origin: "r2:2", nowMs: 6 },
  ];
  for (const op of ops) assert.deepEqual(decodeOp(encodeOp(op)), op);
});

test("a snapshot of a store's groups reads back as the store's own snapshot; an absent one is an empty store", () => {
  const store = new MemoryStore();
  const now = new Date(1_700_000_000_500);
  store.push({ labels: { job: "j", instance: "NaN" }, families, replace: true, now, check: true });
  const histogram: MetricFamily = {
    name: "h",
    help: 'with "quotes"\nand a newline',
    type: "histogram",
    metrics: [
      { labels: [["le_", "x"]], buckets: [[0.5, 1]], sum: 2.5, count: 3, protoValue: '{"sampleCount":"3"}' },
    ],
  };
  store.push({ labels: { job: "k" }, families: [histogram], replace: false, now, check: true });
  const data = encodeSnapshot(store.groups());
  assert.deepEqual(decodeSnapshot(data), store.snapshot());
  const restored = new MemoryStore();
  restored.restore(decodeSnapshot(data));
  assert.deepEqual(restored.families(), store.families());
  assert.deepEqual(decodeSnapshot(null), []);
  assert.throws(() => decodeSnapshot("{}"), /not a pushgateway snapshot/);
  assert.throws(() => decodeSnapshot('{"version":3,"groups":[]}'), /snapshot version 3 is not known/);
});

test("a version 1 snapshot (structured families, as the persistence file) still reads", () => {
  const v1 =
    '{"groups":[{"labels":{"job":"j"},"pushTime":1.5,"failureTime":0,"pushedAt":{"a":1500},' +
    '"families":[{"name":"a","type":"gauge","metrics":[{"labels":[["x","\\u0000s:Infinity"]],"value":"NaN"}]}]}]}';
  assert.deepEqual(decodeSnapshot(v1), [
    {
      labels: { job: "j" },
      pushTime: 1.5,
      failureTime: 0,
      pushedAt: { a: 1500 },
      families: [{ name: "a", type: "gauge", metrics: [{ labels: [["x", "Infinity"]], value: Number.NaN }] }],
    },
  ]);
});

test("the scripts' KEYS and ARGV, in the order the Lua reads them", () => {
  const keys = redisKeys();
  assert.deepEqual(appendArgs(keys, { epoch: "e1", op: "{}" }), [
    "{pushgateway}:epoch",
    "{pushgateway}:seq",
    "{pushgateway}:log",
    "{pushgateway}:alive:",
    "{pushgateway}:settling",
    "e1",
    "{}",
    "",
    "0",
  ]);
  const alive = { kind: "push", group: "job\xffj", ttlMs: 2000 } as const;
  assert.deepEqual(appendArgs(keys, { epoch: "e1", op: "{}", alive }).slice(3), [
    "{pushgateway}:alive:job\xffj",
    "{pushgateway}:settling",
    "e1",
    "{}",
    "push",
    "2000",
  ]);
  assert.deepEqual(expireArgs(keys, { epoch: "e4", op: "{}", group: "job\xffj", cause: "expired" }), [
    "{pushgateway}:epoch",
    "{pushgateway}:seq",
    "{pushgateway}:log",
    "{pushgateway}:alive:job\xffj",
    "{pushgateway}:expiring:job\xffj",
    "{pushgateway}:settling",
    "e4",
    "{}",
    "expired",
  ]);
  assert.deepEqual(seedArgs(keys, { epoch: "e2", seq: 42, data: "D", from: "e0" }), [
    "{pushgateway}:epoch",
    "{pushgateway}:seq",
    "{pushgateway}:log",
    "{pushgateway}:snapshot",
    "{pushgateway}:settling",
    "e2",
    "42",
    "D",
    "e0",
    "2000",
  ]);
  assert.equal(seedArgs(keys, { epoch: "e2", seq: 0, data: "D", from: undefined })[8], "");
  assert.deepEqual(snapshotArgs(keys, { epoch: "e3", seq: 2000, data: "S", keep: 1000 }), [
    "{pushgateway}:epoch",
    "{pushgateway}:snapshot",
    "{pushgateway}:log",
    "e3",
    "2000",
    "S",
    "1000",
  ]);
});

test("appendResult() reads the append and expire scripts' replies", () => {
  assert.deepEqual(appendResult([1, 17]), { kind: "appended", seq: 17 });
  assert.deepEqual(appendResult([0, "other-epoch"]), { kind: "other-epoch", epoch: "other-epoch" });
  assert.deepEqual(appendResult([0, ""]), { kind: "other-epoch", epoch: undefined });
  assert.deepEqual(appendResult([2, 0]), { kind: "nothing-to-do" });
  assert.deepEqual(appendResult([3, 1500]), { kind: "settling", waitMs: 1500 });
  assert.throws(() => appendResult("OK"), /unexpected append reply/);
});

test("an expire op round-trips", () => {
  const op: LogOp = { kind: "expire", origin: "r2:3", labels: { job: "j" }, nowMs: 5000, cutoffMs: 3000 };
  assert.deepEqual(decodeOp(encodeOp(op)), op);
});

test("entrySeq() reads the sequence number of a stream id", () => {
  assert.equal(entrySeq("123-0"), 123);
});
