import assert from "node:assert/strict";
import { test } from "node:test";
import { systemdListenFds } from "./systemd-socket.js";

test("systemdListenFds() returns fds 3.. only for the process LISTEN_PID names", () => {
  assert.deepEqual(systemdListenFds({ LISTEN_PID: "42", LISTEN_FDS: "2" }, 42), [3, 4]);
  assert.deepEqual(systemdListenFds({ LISTEN_PID: "41", LISTEN_FDS: "1" }, 42), []);
  assert.deepEqual(systemdListenFds({ LISTEN_FDS: "1" }, 42), []);
  assert.deepEqual(systemdListenFds({ LISTEN_PID: "42", LISTEN_FDS: "x" }, 42), []);
  assert.deepEqual(systemdListenFds({ LISTEN_PID: "42", LISTEN_FDS: "0" }, 42), []);
});
