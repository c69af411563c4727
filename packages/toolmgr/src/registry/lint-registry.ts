import { parse as parseToml } from "smol-toml";
import { SourceError } from "../errors.js";
import { commandName } from "../safe-names.js";
import { templateHost } from "../source/asset-template.js";
import type { SourceOverride } from "../source/source.js";
import { describeTomlError } from "../toml-error.js";
import { type HostRule, hostAllows, parseHostPolicy } from "./host-policy.js";
import { parseRecipe, type Recipe } from "./recipe.js";

/** Blockchain systems a recipe may name in `ecosystems` (lower-case, what users type after `toolmgr list`). */
export const KNOWN_ECOSYSTEMS = [
  "algorand",
  "aptos",
  "avalanche",
  "bitcoin",
  "cardano",
  "celestia",
  "cosmos",
  "ethereum",
  "fabric",
  "flow",
  "fuel",
  "icp",
  "movement",
  "near",
  "polkadot",
  "solana",
  "starknet",
  "stellar",
  "sui",
  "tezos",
  "ton",
  "zk",
  "zksync",
] as const;

/** Totals the package README states for the registry; checked so the documentation cannot drift. */
export interface RegistryTotals {
  readonly recipes: number;
  readonly ecosystems: number;
  readonly githubRelease: number;
  readonly http: number;
}

/** What the linter reads: recipe files by name, the host policy text, and the stated totals if any. */
export interface RegistryFiles {
  readonly recipes: readonly { readonly file: string; readonly text: string }[];
  readonly policyText: string;
  readonly totals?: RegistryTotals;
}

/** Finds the totals sentence in a README: "Registry totals: 51 recipes, 17 ecosystems, 48 github_release, 3 http". */
export function parseStatedTotals(readme: string): RegistryTotals | undefined {
  const m = /Registry totals: (\d+) recipes, (\d+) ecosystems, (\d+) github_release, (\d+) http/.exec(readme);
  return m
    ? { recipes: Number(m[1]), ecosystems: Number(m[2]), githubRelease: Number(m[3]), http: Number(m[4]) }
    : undefined;
}

/** Checks every recipe and the registry as a whole; returns one message per problem (empty when clean). */
export function lintRegistry(files: RegistryFiles): string[] {
  const problems: string[] = [];
  let policy: ReadonlyMap<string, HostRule> = new Map();
  try {
    policy = parseHostPolicy(parseToml(files.policyText));
  } catch (error) {
    problems.push(`policy/hosts.toml: ${(error as Error).message}`);
  }
  const recipes: Recipe[] = [];
  for (const { file, text } of files.recipes) {
    const where = `registry/${file}`;
    let recipe: Recipe;
    try {
      recipe = parseRecipe(parseToml(text), where);
    } catch (error) {
      problems.push(
        error instanceof SourceError
          ? error.message
          : (describeTomlError(error, where).split("\n")[0] ?? where),
      );
      continue;
    }
    recipes.push(recipe);
    if (`${recipe.name}.toml` !== file)
      problems.push(`${where}: name "${recipe.name}" must equal the file name`);
    for (const e of recipe.ecosystems) {
      if (!(KNOWN_ECOSYSTEMS as readonly string[]).includes(e)) {
        problems.push(`${where}: unknown ecosystem "${e}" (known: ${KNOWN_ECOSYSTEMS.join(", ")})`);
      }
    }
    const d = recipe.description;
    if (d.length >= 100 || d !== d.trim() || /[\n\r]/.test(d) || /[.!?]\s/.test(d)) {
      problems.push(`${where}: description must be one sentence under 100 characters on one line`);
    }
    problems.push(...overrideOverlaps(recipe.source.overrides ?? [], where));
    if (recipe.source.type === "http") {
      const templates = [
        recipe.source.template,
        ...Object.values(recipe.source.channels).map((c) => c.template),
      ];
      for (const template of templates) {
        const host = templateHost(template);
        if (!hostAllows(policy, { host, repo: recipe.source.repo })) {
          problems.push(
            `${where}: host "${host}" is not in policy/hosts.toml for "${recipe.source.repo}"; add it there with the reason a release asset will not do`,
          );
        }
      }
    }
  }
  const byName = new Map<string, string>();
  const byCommand = new Map<string, string>();
  for (const recipe of recipes) {
    if (byName.has(recipe.name)) problems.push(`registry: two recipes are named "${recipe.name}"`);
    byName.set(recipe.name, recipe.name);
    for (const bin of recipe.source.bin) {
      const command = commandName(bin);
      const other = byCommand.get(command);
      if (other !== undefined && other !== recipe.name) {
        problems.push(`registry: command "${command}" is provided by both "${other}" and "${recipe.name}"`);
      }
      byCommand.set(command, recipe.name);
    }
  }
  if (files.totals !== undefined) {
    const actual: RegistryTotals = {
      recipes: recipes.length,
      ecosystems: new Set(recipes.flatMap((r) => r.ecosystems)).size,
      githubRelease: recipes.filter((r) => r.source.type === "github_release").length,
      http: recipes.filter((r) => r.source.type === "http").length,
    };
    const t = files.totals;
    if (
      t.recipes !== actual.recipes ||
      t.ecosystems !== actual.ecosystems ||
      t.githubRelease !== actual.githubRelease ||
      t.http !== actual.http
    ) {
      problems.push(
        `README states ${t.recipes} recipes, ${t.ecosystems} ecosystems, ${t.githubRelease} github_release, ${t.http} http; ` +
          `the registry has ${actual.recipes}, ${actual.ecosystems}, ${actual.githubRelease}, ${actual.http}`,
      );
    }
  }
  return problems;
}

/**
 * Overrides whose `versions` overlap: the first match applies, so a later entry that shares versions with an earlier
 * one is partly dead, which is almost always a mistake in the ranges (`1` and `1.2` overlap; `1.2` and `1.20` do not).
 */
function overrideOverlaps(overrides: readonly SourceOverride[], where: string): string[] {
  const problems: string[] = [];
  const parts = (text: string) => text.split("-")[0]?.split(".").map(Number) ?? [];
  const overlap = (a: string, b: string) => {
    const [x, y] = [parts(a), parts(b)];
    const n = Math.min(x.length, y.length);
    return x.slice(0, n).every((v, i) => v === y[i]) && (a.includes("-") && b.includes("-") ? a === b : true);
  };
  overrides.forEach((later, j) => {
    for (let i = 0; i < j; i++) {
      for (const a of overrides[i]?.versions ?? []) {
        for (const b of later.versions) {
          if (overlap(a, b)) {
            problems.push(
              `${where}: overrides[${j}] versions "${b}" overlaps overrides[${i}] versions "${a}"; the first match applies, so make the ranges disjoint`,
            );
          }
        }
      }
    }
  });
  return problems;
}
