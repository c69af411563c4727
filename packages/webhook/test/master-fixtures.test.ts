// Ours against upstream master's recorded answers (test/fixtures/master/answers.json, written by
// scripts/record-master-fixtures.mjs from a build of master), byte for byte: answers, the log lines that say where it
// serves, who asked and what failed, and the exit code. Here: the scenarios that need only Node (a plain -socket, the
// template functions); the socket-activation ones, which need systemd-socket-activate, are in
// test/master-fixtures.peers.test.ts.
import { OUR_WEBHOOK } from "./support/binaries.js";
import { compareWithMaster } from "./support/master-scenarios.js";

// No socket-activation launcher is given: this side starts nothing but Node.
compareWithMaster((scenario) => scenario.activate === undefined, {
  command: [process.execPath, OUR_WEBHOOK],
});
