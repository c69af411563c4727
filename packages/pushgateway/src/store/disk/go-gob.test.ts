import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { decodeGob, GobError, GobWriter, Writer } from "./go-gob.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/persistence/", import.meta.url));

test("integers as the encoding/gob documentation spells them", () => {
  // "0 is transmitted as (00), 7 as (07) and 256 as (FE 01 00)"; a signed -129 is ^128 shifted, (FE 01 01).
  assert.deepEqual([...new Writer().uint(0).finish()], [0x00]);
  assert.deepEqual([...new Writer().uint(7).finish()], [0x07]);
  assert.deepEqual([...new Writer().uint(256).finish()], [0xfe, 0x01, 0x00]);
  assert.deepEqual([...new Writer().int(-129).finish()], [0xfe, 0x01, 0x01]);
  assert.deepEqual([...new Writer().int(-71).finish()], [0xff, 0x8d]);
});

test("a file written by 1.5.1 decodes: the groups map, a group's labels, each family's timestamp and protobuf", async () => {
  const [top] = decodeGob(await readFile(`${FIXTURES}upstream-1.5.1-small.gob`));
  assert.equal(top?.kind, "map");
  if (top?.kind !== "map") return;
  assert.equal(top.entries.length, 1);
  const [key, group] = top.entries[0] ?? [];
  assert.deepEqual(key, { kind: "string", value: "job\ufffda" });
  assert.equal(group?.kind, "struct");
  if (group?.kind !== "struct") return;
  assert.deepEqual(group.fields.get("Labels"), {
    kind: "map",
    entries: [
      [
        { kind: "string", value: "job" },
        { kind: "string", value: "a" },
      ],
    ],
  });
  const metrics = group.fields.get("Metrics");
  assert.equal(metrics?.kind, "map");
  if (metrics?.kind !== "map") return;
  const names = metrics.entries.map(([k]) => (k.kind === "string" ? k.value : "")).sort();
  assert.deepEqual(names, ["g", "push_failure_time_seconds", "push_time_seconds"]);
  for (const [, tmf] of metrics.entries) {
    assert.equal(tmf.kind, "struct");
    if (tmf.kind !== "struct") continue;
    // time.Time's MarshalBinary, version 1: 15 bytes.
    assert.equal((tmf.fields.get("Timestamp") as { value: Buffer }).value.length, 15);
    assert.equal(tmf.fields.get("GobbableMetricFamily")?.kind, "bytes");
  }
});

test("what GobWriter writes decodes back", () => {
  const gob = new GobWriter();
  gob.define(65, { map: [6, 66], name: "m" });
  gob.define(66, {
    struct: [
      ["A", 6],
      ["B", 67],
    ],
  });
  gob.define(67, { encoder: "E" });
  gob.value(65, { singleton: true }, (w) => {
    w.uint(1).string("k");
    w.uint(1)
      .string("a")
      .uint(1)
      .raw(Buffer.from([1, 2, 3]))
      .uint(0);
  });
  const [v] = decodeGob(gob.finish());
  assert.deepEqual(v, {
    kind: "map",
    entries: [
      [
        { kind: "string", value: "k" },
        {
          kind: "struct",
          fields: new Map<string, unknown>([
            ["A", { kind: "string", value: "a" }],
            ["B", { kind: "bytes", value: Buffer.from([1, 2, 3]) }],
          ]),
        },
      ],
    ],
  });
});

test("data that is not gob is refused, never read as empty", () => {
  for (const bad of [
    Buffer.from("not gob at all"),
    Buffer.from([0x05, 0xff]),
    Buffer.from([0x02, 0x80, 0x00]),
  ])
    assert.throws(() => decodeGob(bad), GobError);
});
