import assert from "node:assert/strict";
import { test } from "node:test";
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { JoinedLines, PackedLines } from "./series-lines.js";

const LINES = ['a{x="1"} 1', 's{q="0.5"} 2\ns_sum 3\ns_count 4', "", 'b{y="ü ✓"} 5'];

test("PackedLines reads back each series' lines, joins and iterates as the array it packed", () => {
  const packed = PackedLines.of(LINES);
  assert.equal(packed.length, LINES.length);
  assert.deepEqual(
    Array.from(LINES, (_l, i) => packed.at(i)),
    LINES,
  );
  assert.equal(packed.at(-1), undefined);
  assert.equal(packed.at(LINES.length), undefined);
  assert.deepEqual([...packed], LINES);
  assert.equal(packed.join("\n"), LINES.join("\n"));
  assert.equal(packed.join(" | "), LINES.join(" | "));
  assert.equal(JSON.stringify({ lines: packed }), JSON.stringify({ lines: LINES }));
  assert.ok(packed.ends instanceof Uint16Array);
  // Nothing in common here; below, the metric name and first label.
  assert.equal(packed.prefix, "");
  const group = ['m{a="1",b="2"} 1', 'm{a="1",b="3"} 2', 'm{a="1",b="20"} 3'];
  const shared = PackedLines.of(group);
  assert.equal(shared.prefix, 'm{a="1",b="');
  assert.deepEqual([...shared], group);
  // A common start is not cut between the halves of a surrogate pair.
  const emoji = ['m{a="\u{1F600}"} 1', 'm{a="\u{1F601}"} 2'];
  const split = PackedLines.of(emoji);
  assert.equal(split.prefix, 'm{a="');
  assert.deepEqual([...split], emoji);
  assert.equal(PackedLines.of([]).length, 0);
  assert.deepEqual([...PackedLines.of([])], []);
});

test("PackedLines past 64 KiB of text keeps 32-bit offsets", () => {
  const lines = Array.from({ length: 3000 }, (_v, i) => `m{i="${i}"} ${"9".repeat(20)}`);
  const packed = PackedLines.of(lines);
  assert.ok(packed.ends instanceof Uint32Array);
  assert.equal(packed.at(2999), lines[2999]);
  assert.deepEqual([...packed], lines);
});

test("PackedLines.revived restores lines that crossed to a worker (structured clone)", () => {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(PackedLines.of(LINES));
  const cloned = receiveMessageOnPort(port2)?.message;
  port1.close();
  assert.ok(!(cloned instanceof PackedLines));
  assert.deepEqual([...PackedLines.revived(cloned)], LINES);
  assert.equal(PackedLines.revived(LINES), LINES);
});

test("JoinedLines reads its parts one after the other, empty parts included", () => {
  const parts = [PackedLines.of(LINES.slice(0, 2)), [], PackedLines.of([]), LINES.slice(2), ["z 9"]];
  const joined = new JoinedLines(parts);
  const all = [...LINES, "z 9"];
  assert.equal(joined.length, all.length);
  assert.deepEqual(
    Array.from(all, (_l, i) => joined.at(i)),
    all,
  );
  assert.equal(joined.at(all.length), undefined);
  assert.deepEqual([...joined], all);
  assert.equal(joined.join("\n"), all.join("\n"));
  assert.equal(JSON.stringify(joined), JSON.stringify(all));
  assert.equal(new JoinedLines([]).length, 0);
  assert.equal(new JoinedLines([]).join("\n"), "");
});
