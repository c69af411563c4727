import assert from "node:assert/strict";
import { test } from "node:test";
import { ParseError } from "../errors.js";
import { parseDelimitedProtobuf } from "./parse-protobuf.js";

// A MetricFamily {name: "m", type: GAUGE, metric: [{gauge: {}}]} by client_model's field numbers.
const FAMILY = [0x0a, 0x01, 0x6d, 0x18, 0x01, 0x22, 0x02, 0x12, 0x00];

test("parseDelimitedProtobuf() answers malformed bodies with Go's error texts (protodelim, binary.ReadUvarint)", async () => {
  const cases: [name: string, body: number[], text: string][] = [
    ["a length varint cut short", [...[FAMILY.length], ...FAMILY, 0x80], "unexpected EOF"],
    ["a message shorter than its length", [FAMILY.length + 3, ...FAMILY], "unexpected EOF"],
    ["a length and nothing after it", [5], "unexpected EOF"],
    [
      "a varint of eleven bytes",
      [...new Array(10).fill(0xff), 0x01],
      "binary: varint overflows a 64-bit integer",
    ],
    [
      "a tenth varint byte above 1",
      [...new Array(9).fill(0xff), 0x02],
      "binary: varint overflows a 64-bit integer",
    ],
    [
      "a field cut inside a complete message",
      [3, 0x0a, 0x05, 0x6d],
      "proto: cannot parse invalid wire-format data",
    ],
    ["wire type 7", [2, 0x0f, 0x00], "proto: cannot parse invalid wire-format data"],
  ];
  for (const [name, body, text] of cases) {
    await assert.rejects(
      parseDelimitedProtobuf(Uint8Array.from(body)),
      (e: unknown) => e instanceof ParseError && e.message === text,
      name,
    );
  }
});

test("parseDelimitedProtobuf() reads families until the body ends; an empty body has none; last of a name wins", async () => {
  assert.deepEqual(await parseDelimitedProtobuf(new Uint8Array()), []);
  const two = Uint8Array.from([FAMILY.length, ...FAMILY, FAMILY.length, ...FAMILY]);
  const families = await parseDelimitedProtobuf(two);
  assert.deepEqual(
    families.map((f) => [f.name, f.type, f.metrics.length]),
    [["m", "gauge", 1]],
  );
});

test("parseDelimitedProtobuf() reads an absent or unknown type as COUNTER, as Go's proto2 decoder; marks a series without its type's value", async () => {
  // {name: "m", type: <t>, metric: [{gauge: {value: 0}}]}; type omitted when undefined.
  const body = (type: number | undefined) => {
    const family = [0x0a, 0x01, 0x6d, ...(type === undefined ? [] : [0x18, type]), 0x22, 0x02, 0x12, 0x00];
    return Uint8Array.from([family.length, ...family]);
  };
  for (const [type, expected, missing] of [
    [undefined, "counter", true],
    [42, "counter", true],
    [1, "gauge", undefined],
    [3, "untyped", true],
  ] as const) {
    const [f] = await parseDelimitedProtobuf(body(type));
    assert.equal(f?.type, expected, `type ${type}`);
    assert.equal(f?.metrics[0]?.valueMissing, missing, `type ${type}`);
  }
});

test("parseDelimitedProtobuf() keeps a help field sent empty apart from one not sent (upstream writes `# HELP m `)", async () => {
  // FAMILY with field 2 (help) present and empty, spliced after the name.
  const withHelp = [0x0a, 0x01, 0x6d, 0x12, 0x00, ...FAMILY.slice(3)];
  const [sent] = await parseDelimitedProtobuf(Buffer.from([withHelp.length, ...withHelp]));
  const [absent] = await parseDelimitedProtobuf(Buffer.from([FAMILY.length, ...FAMILY]));
  assert.equal(sent?.help, "");
  assert.equal(absent?.help, undefined);
});
