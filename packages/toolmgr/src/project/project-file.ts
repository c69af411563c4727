import { parse as parseToml } from "smol-toml";
import { readBoundedText } from "../bounded-read.js";
import { ProjectFileError, SourceError } from "../errors.js";
import { type Platform, tryParsePlatform } from "../platform.js";
import { sourceFingerprint } from "../source/fingerprint.js";
import { parseSource, type Source } from "../source/source.js";
import { describeTomlError } from "../toml-error.js";
import { type Constraint, parseConstraint } from "../version/constraint.js";
import { findProjectFile, PROJECT_FILE_NAME } from "./find-project-file.js";
import { parseReleaseAge, type ReleaseAge } from "./release-age.js";

/** One tool a project wants. */
export interface ProjectTool {
  readonly name: string;
  readonly constraint: Constraint;
  readonly source: Source;
  /** Only for a project-local `[tools.<name>]` source: `sha256:<fingerprint>` of its definition. */
  readonly fingerprint?: string;
  /** `[tools.<name>] min_release_age`, when set: this tool's window, over the project's. */
  readonly minReleaseAge?: ReleaseAge;
}

/** A parsed `toolmgr.toml`. */
export interface ProjectConfig {
  /** Absolute path of `toolmgr.toml`; the lock is written next to it. */
  readonly path: string;
  /** Platforms `lock` resolves for, when the file lists them. */
  readonly platforms?: readonly Platform[];
  /** The top-level `min_release_age`, when set: the window of every tool without one of its own. */
  readonly minReleaseAge?: ReleaseAge;
  /** Sorted by name. */
  readonly tools: readonly ProjectTool[];
}

/** Looks a tool name up in the registry (injected so tests and the linter need no embedded registry). */
export type RecipeLookup = (name: string) => { readonly source: Source } | undefined;

/**
 * Finds and parses the project file for `cwd`.
 *
 * @throws {ProjectFileError} when there is none, or it is invalid
 */
export async function loadProject(cwd: string, lookup: RecipeLookup): Promise<ProjectConfig> {
  return (await loadProjectWithText(cwd, lookup)).project;
}

/** `loadProject`, also returning the text the project was parsed from. */
export async function loadProjectWithText(
  cwd: string,
  lookup: RecipeLookup,
): Promise<{ project: ProjectConfig; text: string }> {
  const path = await findProjectFile(cwd);
  if (path === undefined) {
    throw new ProjectFileError(
      `Cannot find ${PROJECT_FILE_NAME} in "${cwd}" or any parent directory: create one with a [tools] table`,
    );
  }
  return readProjectFile(path, lookup);
}

/** Reads and parses the project file at `path`, already found (`findProjectFile`), with the text it was parsed from. */
export async function readProjectFile(
  path: string,
  lookup: RecipeLookup,
): Promise<{ project: ProjectConfig; text: string }> {
  const text = await readBoundedText(path, { kind: "project", refuse: (m) => new ProjectFileError(m) });
  return { project: parseProjectFile(text, { path, lookup }), text };
}

/**
 * Parses the text of a project file.
 *
 * @throws {ProjectFileError} `Cannot parse toolmgr.toml: ...` naming the key or tool that is wrong
 */
export function parseProjectFile(
  text: string,
  options: { path: string; lookup: RecipeLookup },
): ProjectConfig {
  const context = { ...options, text };
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (cause) {
    throw new ProjectFileError(`Cannot parse ${describeTomlError(cause, options.path)}`, { cause });
  }
  for (const key of Object.keys(raw)) {
    if (key !== "platforms" && key !== "tools" && key !== "min_release_age") {
      throw new ProjectFileError(
        `Cannot parse ${options.path}: unknown key "${key}" (expected "platforms", "min_release_age" and [tools])`,
      );
    }
  }
  let platforms: Platform[] | undefined;
  if (raw.platforms !== undefined) {
    if (!Array.isArray(raw.platforms))
      throw new ProjectFileError(`Cannot parse ${options.path}: "platforms" must be an array`);
    platforms = raw.platforms.map((p) => {
      const platform = typeof p === "string" ? tryParsePlatform(p) : undefined;
      if (platform === undefined) {
        throw new ProjectFileError(
          `Cannot parse ${options.path}: unknown platform ${JSON.stringify(p)} in "platforms" (supported: linux/amd64, linux/arm64, darwin/amd64, darwin/arm64, windows/amd64, windows/arm64)`,
        );
      }
      return platform;
    });
    platforms = [...new Set(platforms)].sort();
  }
  const tools = raw.tools ?? {};
  if (typeof tools !== "object" || tools === null || Array.isArray(tools)) {
    throw new ProjectFileError(`Cannot parse ${options.path}: [tools] must be a table`);
  }
  if (Array.isArray((tools as Record<string, unknown>).platforms)) {
    // TOML puts every key after a [table] header into that table: a platforms line under [tools] is a tool there.
    throw new ProjectFileError(
      `Cannot parse ${options.path}: "platforms" is inside [tools] because it comes after the [tools] header; move the platforms = [...] line above [tools], to the top of the file`,
    );
  }
  if (typeof (tools as Record<string, unknown>).min_release_age === "string") {
    throw new ProjectFileError(
      `Cannot parse ${options.path}: "min_release_age" is inside [tools] because it comes after the [tools] header; move the min_release_age = "..." line above [tools], to the top of the file`,
    );
  }
  const minReleaseAge =
    raw.min_release_age === undefined
      ? undefined
      : parseReleaseAge(raw.min_release_age, { ...context, table: [] });
  const parsed = Object.entries(tools as Record<string, unknown>).map(([name, value]) =>
    parseTool(name, value, context),
  );
  parsed.sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    path: options.path,
    ...(platforms === undefined ? {} : { platforms }),
    ...(minReleaseAge === undefined ? {} : { minReleaseAge }),
    tools: parsed,
  };
}

function parseTool(
  name: string,
  value: unknown,
  options: { path: string; lookup: RecipeLookup; text: string },
): ProjectTool {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw new ProjectFileError(
      `Cannot parse ${options.path}: tool name "${name}" must be lower-case letters, digits, ".", "_" or "-"`,
    );
  }
  if (typeof value === "string") return registryTool(name, value, options);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ProjectFileError(
      `Cannot parse ${options.path}: tools.${name} must be a version string or a table`,
    );
  }
  const table = value as Record<string, unknown>;
  for (const key of Object.keys(table)) {
    if (key !== "version" && key !== "source" && key !== "min_release_age") {
      throw new ProjectFileError(
        `Cannot parse ${options.path}: unknown key "${key}" in [tools.${name}] (expected "version", "min_release_age" and [tools.${name}.source])`,
      );
    }
  }
  if (typeof table.version !== "string" || table.version.length === 0) {
    throw new ProjectFileError(`Cannot parse ${options.path}: [tools.${name}] needs a "version" string`);
  }
  const age =
    table.min_release_age === undefined
      ? {}
      : { minReleaseAge: parseReleaseAge(table.min_release_age, { ...options, table: ["tools", name] }) };
  if (table.source === undefined) return { ...registryTool(name, table.version, options), ...age };
  let source: Source;
  try {
    source = parseSource(table.source, `${options.path} [tools.${name}.source]`);
  } catch (cause) {
    if (cause instanceof SourceError) throw new ProjectFileError(cause.message, { cause });
    throw cause;
  }
  return {
    name,
    constraint: parseConstraint(table.version, name),
    source,
    fingerprint: sourceFingerprint(source),
    ...age,
  };
}

function registryTool(
  name: string,
  version: string,
  options: { path: string; lookup: RecipeLookup },
): ProjectTool {
  const recipe = options.lookup(name);
  if (recipe === undefined) {
    throw new ProjectFileError(
      `Cannot resolve "${name}": it is not in the registry; run \`toolmgr list\` for the known tools, or define [tools.${name}] with a version and a [tools.${name}.source] table`,
    );
  }
  return { name, constraint: parseConstraint(version, name), source: recipe.source };
}
