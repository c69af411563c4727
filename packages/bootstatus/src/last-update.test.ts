import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLastUpdate } from "./last-update.js";

const cases: [number, string][] = [
  // canonical/cloud-init tests/unittests/cmd/test_status.py expectations.
  [125.678, "Thu, 01 Jan 1970 00:02:05 +0000"],
  [124.456, "Thu, 01 Jan 1970 00:02:04 +0000"],
  [128.678, "Thu, 01 Jan 1970 00:02:08 +0000"],
  // doc/rtd/reference/cli.rst example (epoch times of cloud-init <= 24.1).
  [1710355586.9038777, "Wed, 13 Mar 2024 18:46:26 +0000"],
  // Python rounds to the microsecond before the format truncates.
  [59.9999999, "Thu, 01 Jan 1970 00:01:00 +0000"],
  [59.9999995, "Thu, 01 Jan 1970 00:01:00 +0000"],
  [0.9999995, "Thu, 01 Jan 1970 00:00:01 +0000"],
  // ... the fraction alone: 86399.9999995 is the double 86399.99999949999..., whose fraction times 1e6 rounds to
  // 999999 (Python prints 23:59:59), while the whole value times 1e6 is 86399999999.5 (found by the fuzzer).
  [86399.9999995, "Thu, 01 Jan 1970 23:59:59 +0000"],
  [99999.99999949, "Fri, 02 Jan 1970 03:46:39 +0000"],
];
for (const [seconds, expected] of cases) {
  test(`formatLastUpdate() formats ${seconds} like cloud-init`, () => {
    assert.equal(formatLastUpdate(seconds), expected);
  });
}
