// Entry of a spawn helper process (see helper-pool.ts): runs what the server sends and answers with the result.
// It imports nothing else of weight, so it stays small, which is what makes its fork() cheap.
import { spawn } from "node:child_process";
import type { HelperReply, HelperRequest } from "./helper-pool.js";
import { killGroup } from "./kill-group.js";
import { nodeSpawn } from "./node-spawn.js";

process.on("message", (message: HelperRequest) => {
  void nodeSpawn(message.request, { spawn, killGroup }).then((result) => {
    const reply: HelperReply =
      result.error === undefined
        ? { id: message.id, output: result.output }
        : { id: message.id, output: result.output, error: result.error };
    process.send?.(reply);
  });
});
// The server is gone: leave, as upstream leaves its commands running when it exits.
process.on("disconnect", () => process.exit(0));
