import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { NotInstalledError, UsageError } from "../errors.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";
import { commandToolchains, nextOnPath, pinnedCommandNames } from "../store/toolchain.js";

/**
 * `toolmgr which --list`: the commands pinned here, for the completion scripts (`exec`, `which`).
 * `toolmgr which <command>`: the path the shim would run here. A pinned command prints its install; an unpinned
 * one (or any outside a project) prints the next command of that name on `PATH`, where the shim steps aside to,
 * with a note on stderr; none at all is an error.
 */
export async function whichCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const [command] = args.positionals;
  if (args.values.list === true) {
    // `--list` lists; a command beside it would otherwise be looked up with the flag silently dropped.
    if (command !== undefined)
      throw new UsageError(
        `Cannot look up "${command}" with --list: use \`toolmgr which --list\` or \`toolmgr which ${command}\``,
      );
    const names = await pinnedCommandNames(deps);
    deps.io.stdout.write(names.map((n) => `${n}\n`).join(""));
    return 0;
  }
  if (command === undefined)
    throw new UsageError("Cannot look up a command: name one, as in `toolmgr which forge`");
  const { project, user, pinned } = await commandToolchains(command, deps);
  if (pinned !== undefined) {
    deps.io.stdout.write(`${pinned.path}\n`);
    return 0;
  }
  const where = [
    project === undefined
      ? `there is no toolmgr.toml above ${deps.cwd}`
      : `it is not pinned in ${project.lockPath}`,
    ...(user === undefined ? [] : [`nor in the user toolset's ${user.lockPath}`]),
  ].join(", ");
  const shimsDir = storeLayout(toolmgrHome(deps.env, deps.runtime)).shimsDir;
  const next = await nextOnPath(command, { path: deps.env.PATH ?? "", shimsDir });
  if (next === undefined) {
    throw new NotInstalledError(
      `Cannot find "${command}": ${where}, and no other "${command}" is on PATH; pin it in toolmgr.toml or install it`,
    );
  }
  deps.io.stderr.write(`toolmgr: ${where}; the "${command}" shim steps aside to the next one on PATH\n`);
  deps.io.stdout.write(`${next}\n`);
  return 0;
}
