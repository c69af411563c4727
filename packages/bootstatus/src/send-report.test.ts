import assert from "node:assert/strict";
import { test } from "node:test";
import { parseReportTarget, shownUrl } from "./report-target.js";
import { signature } from "./send-report.js";

test("X-Hub-Signature-256 as GitHub documents it (docs.github.com, 'Validating webhook deliveries' test values)", () => {
  assert.equal(
    signature("Hello, World!", "It's a Secret to Everybody"),
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
  );
});

test("--to: pushgateway[s]:// becomes the Pushgateway API path; credentials never shown", () => {
  const plain = parseReportTarget("pushgateway://gw:9091/job/boot/instance/vm1");
  assert.deepEqual(
    [plain.kind, plain.url.href],
    ["pushgateway", "http://gw:9091/metrics/job/boot/instance/vm1"],
  );
  const tls = parseReportTarget("pushgateways://u:p%40ss@gw:9091/job/boot");
  assert.equal(tls.url.protocol, "https:");
  assert.equal(tls.url.password, "p%40ss");
  assert.equal(shownUrl(tls.url), "https://gw:9091/metrics/job/boot");
  // The API's base64 form of a job name with a `/` (prometheus/pushgateway README "URL") is the grouping key too.
  assert.equal(
    parseReportTarget("pushgateway://gw:9091/job@base64/Ym9vdC92bTE/instance/vm1").url.href,
    "http://gw:9091/metrics/job@base64/Ym9vdC92bTE/instance/vm1",
  );
  const hook = parseReportTarget("https://ci.example.com/hooks/boot-report");
  assert.deepEqual([hook.kind, hook.url.href], ["webhook", "https://ci.example.com/hooks/boot-report"]);
  for (const bad of [
    "pushgateway://gw:9091/job",
    "pushgateway://gw:9091/job/j/label",
    "pushgateway:///job/j",
    // Found by the outputs fuzzer: these were dropped, pushing to job "j" instead.
    "pushgateway://gw:9091/job/j?instance=vm1",
    "pushgateway://gw:9091/job/j#vm1",
    "mailto:x@y",
    "not a url",
  ]) {
    assert.throws(() => parseReportTarget(bad), /argument --to/);
  }
});
