import { EMBEDDED_RECIPES, EMBEDDED_REVISION, EMBEDDED_SOURCE } from "./embedded.generated.js";

/** What `list`, `version` and `completion` show of a recipe: everything but its source. */
export interface RecipeSummary {
  readonly name: string;
  readonly ecosystems: readonly string[];
  readonly description: string;
}

/** The embedded registry as those commands see it: summaries sorted by name, the revision, where it is kept. */
export interface RegistrySummary {
  readonly recipes: readonly RecipeSummary[];
  readonly revision: string;
  readonly source: string;
}

let cached: RegistrySummary | undefined;

/**
 * The embedded registry without parsing any source. `list` and `version` must start about as fast as `node -e 0`
 * (bench/toolmgr/README.md "Start-up"); the source model pulls in `node:crypto` for fingerprints, which alone costs
 * more than the rest of start-up. The recipes were parsed in full when the registry was linted and tested
 * (`loadRegistry()` in `registry.ts` does the full parse for `lock`), so only the three shown keys are read here.
 */
export function registrySummary(): RegistrySummary {
  cached ??= {
    recipes: EMBEDDED_RECIPES.map(({ file, raw }) => summarize(raw, file)).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    ),
    revision: EMBEDDED_REVISION,
    source: EMBEDDED_SOURCE,
  };
  return cached;
}

/** Ecosystems in use with their tools (a tool may belong to several), sorted by ecosystem name. */
export function toolsByEcosystem(recipes: readonly RecipeSummary[]): Map<string, RecipeSummary[]> {
  const byEcosystem = new Map<string, RecipeSummary[]>();
  for (const recipe of recipes) {
    for (const ecosystem of recipe.ecosystems) {
      byEcosystem.set(ecosystem, [...(byEcosystem.get(ecosystem) ?? []), recipe]);
    }
  }
  return new Map([...byEcosystem].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function summarize(raw: unknown, file: string): RecipeSummary {
  const { name, ecosystems, description } = (raw ?? {}) as Record<string, unknown>;
  if (
    typeof name !== "string" ||
    typeof description !== "string" ||
    !Array.isArray(ecosystems) ||
    !ecosystems.every((e) => typeof e === "string")
  ) {
    // Unreachable for a built registry (the build's tests parse every recipe in full); said plainly if it happens.
    throw new Error(`The embedded registry/${file} lacks name, ecosystems or description: rebuild toolmgr`);
  }
  return { name, ecosystems, description };
}
