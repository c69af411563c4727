import {
  EMBEDDED_HOST_POLICY,
  EMBEDDED_RECIPES,
  EMBEDDED_REVISION,
  EMBEDDED_SOURCE,
} from "./embedded.generated.js";
import { type HostRule, parseHostPolicy } from "./host-policy.js";
import { parseRecipe, type Recipe } from "./recipe.js";

/** The registry embedded in this build: its recipes by name, its revision and where it is maintained. */
export interface Registry {
  /** Sorted by name. */
  readonly recipes: readonly Recipe[];
  readonly revision: string;
  readonly source: string;
}

let cached: Registry | undefined;

/** The embedded registry, parsed on first use (the build already validated it; this only builds the objects). */
export function loadRegistry(): Registry {
  cached ??= {
    recipes: EMBEDDED_RECIPES.map(({ file, raw }) => parseRecipe(raw, `registry/${file}`)).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    ),
    revision: EMBEDDED_REVISION,
    source: EMBEDDED_SOURCE,
  };
  return cached;
}

/** The recipe named `name`, if the registry has one. */
export function findRecipe(name: string): Recipe | undefined {
  return loadRegistry().recipes.find((r) => r.name === name);
}

/** The embedded host policy for `http` recipes (`policy/hosts.toml`). */
export function hostPolicy(): ReadonlyMap<string, HostRule> {
  return parseHostPolicy(EMBEDDED_HOST_POLICY);
}
