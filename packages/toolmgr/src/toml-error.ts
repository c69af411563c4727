/**
 * A TOML syntax error as `<path>:<line>:<column>: <what>` followed by smol-toml's excerpt of the lines around it, so an
 * editor or terminal jumps to the spot (smol-toml's `TomlError` carries `line` and `column`, 1-based).
 */
export function describeTomlError(cause: unknown, path: string): string {
  const error = cause as Error & { line?: unknown; column?: unknown };
  const [first = "", ...rest] = String(error.message).split("\n");
  const what = first.replace(/^Invalid TOML document:\s*/, "");
  const excerpt = rest.join("\n").replace(/\n+$/, "");
  if (typeof error.line !== "number" || typeof error.column !== "number") return `${path}: ${what}`;
  return `${path}:${error.line}:${error.column}: ${what}${excerpt.trim() === "" ? "" : `\n${excerpt}`}`;
}
