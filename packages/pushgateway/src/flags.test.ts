import assert from "node:assert/strict";
import { test } from "node:test";
import { flagValues, parseFlags } from "./flags.js";

test("kingpin-style flags with upstream defaults", () => {
  const c = parseFlags([
    "--web.listen-address=127.0.0.1:1",
    "--web.enable-lifecycle",
    "--persistence.interval",
    "1m",
  ]);
  assert.equal(c.listenAddress, "127.0.0.1:1");
  assert.equal(c.enableLifecycle, true);
  assert.equal(c.persistenceInterval, 60_000);
  assert.equal(c.telemetryPath, "/metrics");
  assert.equal(parseFlags([]).listenAddress, ":9091");
  assert.equal(parseFlags(["--push.group-ttl=1h30m"]).groupTtl, 5_400_000);
});

test("unknown flags and bad values are usage errors", () => {
  assert.throws(() => parseFlags(["--nope"]), { message: "unknown long flag '--nope'" });
  assert.throws(() => parseFlags(["--push.max-groups=x"]), /invalid value "x"/);
  assert.throws(() => parseFlags(["--push.group-ttl=5x"]), /unknown unit "x"/);
});

test("--storage.redis-url: validated at parse time, not with --persistence.file, redacted in flag values", () => {
  const c = parseFlags(["--storage.redis-url=redis://u:pw@127.0.0.1:6379/1"]);
  assert.equal(c.redisUrl, "redis://u:pw@127.0.0.1:6379/1");
  assert.equal(flagValues(c)["storage.redis-url"], "redis://u:xxxxx@127.0.0.1:6379/1");
  assert.throws(() => parseFlags(["--storage.redis-url=127.0.0.1:6379"]), /expected redis:\/\//);
  assert.throws(
    () => parseFlags(["--storage.redis-url=redis://h/0", "--persistence.file=/tmp/x"]),
    /cannot be combined/,
  );
  assert.throws(() => parseFlags(["--storage.redis-password-file=/x"]), /needs --storage.redis-url/);
});

test("--web.listen-address may be repeated; the status API lists every address joined by commas", () => {
  const c = parseFlags(["--web.listen-address=127.0.0.1:1", "--web.listen-address", "127.0.0.1:2"]);
  assert.deepEqual(c.listenAddresses, ["127.0.0.1:1", "127.0.0.1:2"]);
  assert.equal(c.listenAddress, "127.0.0.1:1");
  assert.equal(flagValues(c)["web.listen-address"], "127.0.0.1:1,127.0.0.1:2");
  assert.deepEqual(parseFlags([]).listenAddresses, [":9091"]);
});

test("--web.auth-exempt-probes is off by default", () => {
  assert.equal(parseFlags([]).authExemptProbes, false);
  assert.equal(parseFlags(["--web.auth-exempt-probes"]).authExemptProbes, true);
});

// Debian's prometheus-pushgateway's refusals (kingpin), word for word after `error: `.
test("kingpin's refusals: a value on a bool flag, short flags, bad durations and URLs", () => {
  const cases: [string[], string][] = [
    [["--web.enable-admin-api=true"], "unexpected true"],
    [["--web.enable-lifecycle=false"], "unexpected false"],
    [["-x"], "unknown short flag '-x'"],
    [["-h2"], "unknown short flag '-2'"],
    [["-"], "unexpected -"],
    [["--persistence.interval=5"], 'time: missing unit in duration "5"'],
    [["--persistence.interval=abc"], 'time: invalid duration "abc"'],
    [["--web.external-url=:bad"], 'invalid URL: parse ":bad": missing protocol scheme'],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseFlags(argv), { message }, argv.join(" "));
  assert.equal(parseFlags(["-h"]).help, true);
  assert.equal(parseFlags(["--persistence.interval=1.5h"]).persistenceInterval, 5_400_000);
  assert.equal(parseFlags(["--persistence.interval=-1s"]).persistenceInterval, 0);
  assert.throws(
    () => parseFlags(["--push.group-ttl=-1s"]),
    /negative duration "-1s" for flag --push.group-ttl/,
  );
});
