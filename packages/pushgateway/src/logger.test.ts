import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "./logger.js";

const now = () => new Date("2026-01-02T03:04:05.678Z");

test("logfmt quotes only values that need it and drops lower levels", () => {
  const lines: string[] = [];
  const log = createLogger({ format: "logfmt", level: "info", write: (l) => lines.push(l), now });
  log("debug", "hidden");
  log("info", "Listening on", { address: "127.0.0.1:9091", empty: "" });
  assert.deepEqual(lines, [
    'ts=2026-01-02T03:04:05.678Z level=info msg="Listening on" address=127.0.0.1:9091 empty=""\n',
  ]);
});

test("json writes one object per line with the same keys", () => {
  const lines: string[] = [];
  const log = createLogger({ format: "json", level: "warn", write: (l) => lines.push(l), now });
  log("info", "hidden");
  log("error", "bad", { err: "x" });
  assert.deepEqual(
    lines.map((l) => JSON.parse(l)),
    [{ ts: "2026-01-02T03:04:05.678Z", level: "error", msg: "bad", err: "x" }],
  );
});
