import type { ChildProcess } from "node:child_process";
import type { CommandResult, RunRequest } from "./node-spawn.js";

/** A request to a helper, and its answer (`output` arrives as a Uint8Array through advanced serialisation). */
export interface HelperRequest {
  readonly id: number;
  readonly request: RunRequest;
}
export interface HelperReply {
  readonly id: number;
  readonly output: Uint8Array;
  readonly error?: string;
}

/** A pool of spawn helpers. */
export interface HelperPool {
  readonly run: (request: RunRequest) => Promise<CommandResult>;
}

interface Helper {
  readonly child: ChildProcess;
  readonly pending: Map<number, (result: CommandResult) => void>;
}

/**
 * Runs commands in small helper processes instead of the server. node spawns with `fork()`, whose cost grows with
 * the calling process's memory and which blocks the calling event loop until the child has exec'd (about 2.4 ms for
 * the server at 57 MB, 20 ms at 270 MB, measured; bench/webhook/README.md). A helper holds little memory and blocks
 * only itself, so the server keeps answering while helpers spawn in parallel. Each request goes to the least busy
 * helper; helpers start on first use (after `-setuid`/`-setgid` have dropped privileges) and are replaced when one
 * dies, its runs in flight failing like a command that could not run. Idle helpers do not keep the server alive.
 */
export function createHelperPool(options: { size: number; start: () => ChildProcess }): HelperPool {
  const helpers: (Helper | undefined)[] = Array.from({ length: options.size }, () => undefined);
  let nextId = 0;
  const startHelper = (slot: number): Helper => {
    const child = options.start();
    const helper: Helper = { child, pending: new Map() };
    hold(child, false);
    child.on("message", (reply: HelperReply) => {
      const output = Buffer.from(reply.output.buffer, reply.output.byteOffset, reply.output.byteLength);
      settle(helper, reply.id, reply.error === undefined ? { output } : { output, error: reply.error });
    });
    const lost = (why: string) => {
      if (helpers[slot] === helper) helpers[slot] = undefined;
      for (const done of helper.pending.values()) done({ output: Buffer.alloc(0), error: why });
      helper.pending.clear();
    };
    child.on("error", (e) => lost(`spawn helper: ${e.message}`));
    child.on("exit", (code, signal) => lost(`spawn helper exited (${signal ?? code})`));
    helpers[slot] = helper;
    return helper;
  };
  return {
    run: (request) =>
      new Promise((resolve) => {
        let slot = 0;
        for (let i = 1; i < helpers.length; i++) {
          if ((helpers[i]?.pending.size ?? 0) < (helpers[slot]?.pending.size ?? 0)) slot = i;
        }
        const helper = helpers[slot] ?? startHelper(slot);
        const id = nextId++;
        helper.pending.set(id, resolve);
        // A run in flight keeps the server process alive, as a child of its own would; an idle helper does not.
        if (helper.pending.size === 1) hold(helper.child, true);
        const message: HelperRequest = { id, request };
        helper.child.send(message, (error) => {
          if (error !== null)
            settle(helper, id, { output: Buffer.alloc(0), error: `spawn helper: ${error.message}` });
        });
      }),
  };
}

/** Answers run `id` once (later answers for it are ignored); an idle helper stops holding the server alive. */
function settle(helper: Helper, id: number, result: CommandResult): void {
  const done = helper.pending.get(id);
  if (done === undefined) return;
  helper.pending.delete(id);
  if (helper.pending.size === 0) hold(helper.child, false);
  done(result);
}

/** Whether a helper (its process and IPC channel) keeps the event loop alive. */
function hold(child: ChildProcess, keep: boolean): void {
  const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
  if (keep) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}
