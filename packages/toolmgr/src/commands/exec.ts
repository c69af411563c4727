import { delimiter } from "node:path";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { UsageError } from "../errors.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";
import { commandToolchains, toolchainPath } from "../store/toolchain.js";

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/**
 * `toolmgr exec <command> [args...]`: runs the command with every executable of the nearest lock first on `PATH`.
 * Checks offline first (stale lock, missing or damaged install); forwards SIGINT and SIGTERM; exits with the
 * child's status, or 128 + the signal that ended it.
 */
export async function execCommand(args: CommandArgs, deps: Deps): Promise<number> {
  // `toolmgr exec -- <command> ...` is accepted too, as the peer's users write it (nao1215/block e2e exec.atago.yaml).
  const [command, ...rest] = args.positionals[0] === "--" ? args.positionals.slice(1) : args.positionals;
  if (command === undefined)
    throw new UsageError("Cannot exec: name a command, as in `toolmgr exec forge --version`");
  const toolchains = await commandToolchains(command, deps);
  const { pinned } = toolchains;
  // The shims directory leaves PATH: the pinned directories come first anyway, and an unpinned command must reach
  // the next one of its name rather than a shim (on Windows the `.cmd` shim calls `exec` again).
  const shimsDir = storeLayout(toolmgrHome(deps.env, deps.runtime)).shimsDir;
  const path = [
    ...toolchainPath(toolchains),
    ...(deps.env.PATH ?? "")
      .split(delimiter)
      .filter((p) => p !== "" && p !== shimsDir && p !== `${shimsDir}/`),
  ].join(delimiter);
  // The handlers are in place before the child exists: a SIGTERM that arrives once the child runs (it may already
  // have said "ready" to whoever sends it) but before they were installed would end toolmgr by the default action and
  // leave the child running, orphaned (nao1215/block e2e/atago/signal.atago.yaml, on a loaded machine). A signal
  // before the spawn is passed on right after it.
  let child: ReturnType<Deps["spawn"]> | undefined;
  let early: "SIGINT" | "SIGTERM" | undefined;
  const forward = (signal: "SIGINT" | "SIGTERM") => () => {
    if (child === undefined) early = signal;
    else child.kill(signal);
  };
  const off = [deps.onSignal("SIGINT", forward("SIGINT")), deps.onSignal("SIGTERM", forward("SIGTERM"))];
  try {
    child = deps.spawn(pinned?.path ?? command, rest, {
      stdio: "inherit",
      env: { ...deps.env, PATH: path },
    });
    if (early !== undefined) child.kill(early);
    const started = child;
    return await new Promise<number>((resolve) => {
      started.on("error", (error: NodeJS.ErrnoException) => {
        deps.io.stderr.write(
          `toolmgr: cannot run "${command}": ${error.code === "ENOENT" ? "not found on PATH" : error.message}\n`,
        );
        resolve(error.code === "ENOENT" ? 127 : 126);
      });
      started.on("close", (code, signal) => resolve(code ?? 128 + (SIGNAL_NUMBERS[signal ?? ""] ?? 1)));
    });
  } finally {
    for (const unsubscribe of off) unsubscribe();
  }
}
