import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_LISTEN_FDS, systemdActivation, unixSocketPath } from "./systemd-activation.js";

test("the descriptors from 3 on when LISTEN_PID is this process; the variables always leave the environment", () => {
  const env = { LISTEN_PID: "42", LISTEN_FDS: "2", LISTEN_FDNAMES: "a:b", PATH: "/bin" };
  assert.deepEqual(systemdActivation(env, 42), { fds: [3, 4], count: 2, env: { PATH: "/bin" } });
  // Meant for another process (a parent that did not unset them): not ours, and not passed on.
  assert.deepEqual(systemdActivation(env, 7), { fds: [], count: 0, env: { PATH: "/bin" } });
  assert.deepEqual(systemdActivation({ LISTEN_PID: "42", LISTEN_FDS: "0" }, 42).fds, []);
  assert.deepEqual(systemdActivation({ LISTEN_PID: "42", LISTEN_FDS: "x" }, 42).fds, []);
  assert.deepEqual(systemdActivation({ LISTEN_PID: "+42", LISTEN_FDS: "1" }, 42).fds, [3]);
  assert.deepEqual(systemdActivation({ PATH: "/bin" }, 42), { fds: [], count: 0, env: { PATH: "/bin" } });
});

test("a LISTEN_FDS past MAX_LISTEN_FDS is counted, not listed: no memory is spent on a hostile value", () => {
  const huge = systemdActivation({ LISTEN_PID: "42", LISTEN_FDS: "100000000" }, 42);
  assert.deepEqual({ fds: huge.fds, count: huge.count }, { fds: [], count: 100000000 });
  assert.equal(
    systemdActivation({ LISTEN_PID: "42", LISTEN_FDS: String(MAX_LISTEN_FDS) }, 42).fds.length,
    MAX_LISTEN_FDS,
  );
});

test("a passed Unix socket's path is found through /proc/self/fd and /proc/net/unix", () => {
  const table =
    "Num       RefCount Protocol Flags    Type St Inode Path\n" +
    "0000000000000000: 00000002 00000000 00010000 0001 01 1234 /run/webhook.sock\n" +
    "0000000000000000: 00000002 00000000 00010000 0001 01 99 @abstract\n" +
    "0000000000000000: 00000003 00000000 00000000 0001 03 5678\n";
  const fs = (link: string) => ({
    readlink: () => link,
    readFile: () => table,
  });
  assert.equal(unixSocketPath(3, fs("socket:[1234]")), "/run/webhook.sock");
  assert.equal(unixSocketPath(3, fs("socket:[99]")), "@abstract");
  assert.equal(unixSocketPath(3, fs("socket:[5678]")), undefined);
  assert.equal(unixSocketPath(3, fs("/dev/null")), undefined);
  assert.equal(
    unixSocketPath(3, {
      readlink: () => {
        throw new Error("EBADF");
      },
      readFile: () => table,
    }),
    undefined,
  );
});

test("pushgateway's --web.systemd-socket cases: fds 3.. only for the process LISTEN_PID names", () => {
  const fds = (env: Record<string, string>) => systemdActivation(env, 42).fds;
  assert.deepEqual(fds({ LISTEN_PID: "42", LISTEN_FDS: "2" }), [3, 4]);
  assert.deepEqual(fds({ LISTEN_PID: "41", LISTEN_FDS: "1" }), []);
  assert.deepEqual(fds({ LISTEN_FDS: "1" }), []);
  assert.deepEqual(fds({ LISTEN_PID: "42", LISTEN_FDS: "x" }), []);
  assert.deepEqual(fds({ LISTEN_PID: "42", LISTEN_FDS: "0" }), []);
});
