import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { ToolmgrError } from "../errors.js";
import { lintRegistry, parseStatedTotals } from "../registry/lint-registry.js";

/**
 * `toolmgr lint-registry [<dir>]`: checks `<dir>/registry/*.toml` and `<dir>/policy/hosts.toml` (default: the
 * current directory), and the totals `<dir>/README.md` states. A maintainer command, run in CI.
 */
export async function lintRegistryCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const dir = resolve(deps.cwd, args.positionals[0] ?? ".");
  let names: string[];
  try {
    names = (await readdir(join(dir, "registry"))).filter((f) => f.endsWith(".toml")).sort();
  } catch (cause) {
    throw new ToolmgrError(
      "TOOLMGR_REGISTRY",
      `Cannot lint "${dir}": it has no registry/ directory; pass the directory that holds registry/ and policy/`,
      {
        cause,
      },
    );
  }
  const recipes = await Promise.all(
    names.map(async (file) => ({ file, text: await readFile(join(dir, "registry", file), "utf8") })),
  );
  const policyText = await readFile(join(dir, "policy", "hosts.toml"), "utf8").catch(() => "");
  const readme = await readFile(join(dir, "README.md"), "utf8").catch(() => undefined);
  const totals = readme === undefined ? undefined : parseStatedTotals(readme);
  const problems = lintRegistry({ recipes, policyText, ...(totals === undefined ? {} : { totals }) });
  if (readme !== undefined && totals === undefined) {
    problems.push(
      'README.md states no "Registry totals: N recipes, N ecosystems, N github_release, N http" line',
    );
  }
  for (const p of problems) deps.io.stderr.write(`${p}\n`);
  if (problems.length > 0) {
    deps.io.stderr.write(
      `toolmgr: registry has ${problems.length} problem${problems.length === 1 ? "" : "s"}\n`,
    );
    return 1;
  }
  deps.io.stdout.write(`registry ok: ${recipes.length} recipes\n`);
  return 0;
}
