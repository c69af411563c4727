import { SourceError } from "../errors.js";
import { parseSource, type Source } from "../source/source.js";

/** A registry recipe: how to resolve one tool (spec: "Registry recipe"). Data only, never a script. */
export interface Recipe {
  readonly name: string;
  readonly ecosystems: readonly string[];
  readonly description: string;
  readonly source: Source;
}

const RECIPE_KEYS = new Set(["name", "ecosystems", "description", "source"]);

/**
 * Parses one recipe file's TOML value. `where` names the file in messages (`registry/foundry.toml`).
 *
 * @throws {SourceError} naming the file and the key that is wrong
 */
export function parseRecipe(raw: unknown, where: string): Recipe {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new SourceError(`Cannot parse ${where}: expected a table`);
  }
  const table = raw as Record<string, unknown>;
  for (const key of Object.keys(table)) {
    if (!RECIPE_KEYS.has(key)) throw new SourceError(`Cannot parse ${where}: unknown key "${key}"`);
  }
  const { name, ecosystems, description } = table;
  if (typeof name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new SourceError(`Cannot parse ${where}: "name" must be lower-case letters, digits and "-"`);
  }
  if (
    !Array.isArray(ecosystems) ||
    ecosystems.length === 0 ||
    !ecosystems.every((e) => typeof e === "string" && /^[a-z0-9][a-z0-9-]*$/.test(e))
  ) {
    throw new SourceError(
      `Cannot parse ${where}: "ecosystems" must be a non-empty array of lower-case names`,
    );
  }
  if (typeof description !== "string" || description.length === 0) {
    throw new SourceError(`Cannot parse ${where}: "description" must be a non-empty string`);
  }
  return { name, ecosystems, description, source: parseSource(table.source, `${where} [source]`) };
}
