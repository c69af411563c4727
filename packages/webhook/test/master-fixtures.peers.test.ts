// Ours against upstream master's recorded answers (test/fixtures/master/answers.json, written by
// scripts/record-master-fixtures.mjs from a build of master), byte for byte: answers, the log lines that say where it
// serves, who asked and what failed, and the exit code. Here: the socket-activation scenarios, started by Debian's
// systemd-socket-activate (package systemd); the others run in npm test (test/master-fixtures.test.ts).
import { OUR_WEBHOOK } from "./support/binaries.js";
import { compareWithMaster } from "./support/master-scenarios.js";

/** Debian's `systemd-socket-activate` (package `systemd`), which passes listening sockets as systemd does. */
const SOCKET_ACTIVATE = "/usr/bin/systemd-socket-activate";

compareWithMaster((scenario) => scenario.activate !== undefined, {
  command: [process.execPath, OUR_WEBHOOK],
  socketActivate: SOCKET_ACTIVATE,
});
