// Entry of a spawn helper process (see spawn-helpers.ts): runs what the server sends and answers with the result.
// It imports nothing else of weight, so it stays small, which is what makes its fork() cheap.
import { spawn } from "node:child_process";
import { killGroup } from "./kill-group.js";
import { runProcess } from "./run-process.js";
import type { HelperReply, HelperRequest } from "./spawn-helpers.js";

process.on("message", (message: HelperRequest) => {
  void runProcess(message.request, { spawn, killGroup }).then((result) => {
    const reply: HelperReply =
      result.error === undefined
        ? { id: message.id, output: result.output }
        : { id: message.id, output: result.output, error: result.error };
    process.send?.(reply);
  });
});
// The server is gone: leave, as upstream leaves its commands running when it exits.
process.on("disconnect", () => process.exit(0));
