import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, test } from "node:test";
import bcrypt from "bcryptjs";
import { createBasicAuth, parseBasicAuth } from "./basic-auth.js";

const auth = createBasicAuth();
after(() => auth.close());
const header = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

test("Go's Request.BasicAuth: scheme in any case, split at the first colon; anything else is no credentials", () => {
  assert.deepEqual(parseBasicAuth(header("a", "b:c")), { user: "a", password: "b:c" });
  assert.deepEqual(parseBasicAuth(`bAsIc ${Buffer.from("u:p").toString("base64")}`), {
    user: "u",
    password: "p",
  });
  for (const bad of [
    undefined,
    "",
    "Bearer x",
    "Basic !!!",
    `Basic ${Buffer.from("nocolon").toString("base64")}`,
    // Not UTF-8: refused, never read as U+FFFD (which a password holding U+FFFD would then match).
    `Basic ${Buffer.from([0x61, 0x3a, 0xff]).toString("base64")}`,
    `Basic ${Buffer.from([0xc3, 0x3a, 0x70]).toString("base64")}`,
  ])
    assert.equal(parseBasicAuth(bad), undefined, String(bad));
});

// Found by http-surface-fuzz beside 1.5.1: Go's bcrypt compares the hash it parsed, written back (hashed.Hash), so
// characters past the 60th are ignored and the cost may carry a sign; bcryptjs refused them.
test("a hash is compared as Go's bcrypt reads it: characters past the hash ignored, the cost read by Atoi", async () => {
  const made = bcrypt.hashSync("pw", 4);
  for (const hash of [
    made,
    `${made}x`,
    `${made}trailing`,
    made.replace("$04$", "$+4$"),
    made.replace(/^\$2b/, "$2y"),
  ]) {
    const users = new Map([["alice", hash]]);
    assert.equal(await auth.check(users, header("alice", "pw")), true, hash);
    assert.equal(await auth.check(users, header("alice", "px")), false, hash);
  }
  // One character short, or a cost Go cannot read: never verifies.
  for (const hash of [made.slice(0, -1), made.replace("$04$", "$x4$")])
    assert.equal(await auth.check(new Map([["alice", hash]]), header("alice", "pw")), false, hash);
});

test("a password holding U+FFFD is not matched by bytes that are not UTF-8", async () => {
  const users = new Map([["alice", bcrypt.hashSync("a\ufffd", 4)]]);
  assert.equal(await auth.check(users, header("alice", "a\ufffd")), true);
  const raw = `Basic ${Buffer.concat([Buffer.from("alice:a"), Buffer.from([0xff])]).toString("base64")}`;
  assert.equal(await auth.check(users, raw), false);
});

test("bcrypt (on the worker) and sha256 hashes; an unknown user or a wrong password refused; no users, no check", async () => {
  const users = new Map([
    ["alice", bcrypt.hashSync("s3cret", 4)],
    ["bob", `sha256:${createHash("sha256").update("pw").digest("hex")}`],
  ]);
  assert.equal(await auth.check(users, header("alice", "s3cret")), true);
  assert.equal(await auth.check(users, header("alice", "S3cret")), false);
  assert.equal(await auth.check(users, header("bob", "pw")), true);
  assert.equal(await auth.check(users, header("bob", "pw2")), false);
  assert.equal(await auth.check(users, header("carol", "fakepassword")), false);
  assert.equal(await auth.check(users, undefined), false);
  assert.equal(await auth.check(new Map(), undefined), true);
});

test("a changed hash is verified again: the cached verdict belongs to (user, hash, password)", async () => {
  const first = new Map([["u", bcrypt.hashSync("one", 4)]]);
  assert.equal(await auth.check(first, header("u", "one")), true);
  const second = new Map([["u", bcrypt.hashSync("two", 4)]]);
  assert.equal(await auth.check(second, header("u", "one")), false);
  assert.equal(await auth.check(second, header("u", "two")), true);
});

test("concurrent checks of the same credentials share one comparison and all get the verdict", async () => {
  const users = new Map([["c", bcrypt.hashSync("pw", 6)]]);
  const verdicts = await Promise.all(
    Array.from({ length: 20 }, (_, i) => auth.check(users, header("c", i % 2 === 0 ? "pw" : "nope"))),
  );
  assert.deepEqual(
    verdicts,
    Array.from({ length: 20 }, (_, i) => i % 2 === 0),
  );
});
