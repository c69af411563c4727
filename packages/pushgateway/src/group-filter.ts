import type { GroupingLabels } from "./grouping-key.js";
import { anchoredRegExp } from "./linear-regexp.js";

/** One term of a filter: a label matcher (PromQL's four operators) or free text. */
export type FilterTerm =
  | {
      readonly kind: "label";
      readonly name: string;
      readonly op: "=" | "!=" | "=~" | "!~";
      readonly value: string;
    }
  | { readonly kind: "text"; readonly text: string };

/** A parsed filter, or the reason it could not be parsed (shown on the page; the listing is then unfiltered). */
export type GroupFilter =
  | { readonly ok: true; readonly terms: readonly FilterTerm[] }
  | { readonly ok: false; readonly error: string };

// `name op value` with the value quoted ("..." with \" and \\ escapes) or bare up to a space or comma; or a bare
// word. static/pushgateway.js parses the same syntax for the live filter, so a typed filter and a submitted one agree
// (group-filter.test.ts checks the script carries this very expression).
/** One filter term, read sticky from the start of the rest of the input. */
export const FILTER_TERM =
  /\s*,?\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|[^\s,]*)|("(?:[^"\\]|\\.)*"|[^\s,]+))/y;

/**
 * Parses the status page's group filter: whitespace- or comma-separated terms, each `name="value"`,
 * `name!="value"`, `name=~"regex"`, `name!~"regex"` (quotes optional; regexes anchored as in PromQL) or a word that
 * must occur in one of the group's `name="value"` pairs (case-insensitive). Every term must hold.
 */
export function parseGroupFilter(input: string): GroupFilter {
  const terms: FilterTerm[] = [];
  FILTER_TERM.lastIndex = 0;
  let rest = input.trim();
  while (rest !== "") {
    FILTER_TERM.lastIndex = 0;
    const m = FILTER_TERM.exec(rest);
    if (m === null || m[0].trim() === "") return { ok: false, error: `cannot read the filter at "${rest}"` };
    rest = rest.slice(m[0].length).trim();
    const [, name, op, rawValue, word] = m;
    if (name !== undefined && op !== undefined) {
      const value = unquote(rawValue ?? "");
      if (op === "=~" || op === "!~") {
        try {
          anchoredRegExp(value);
        } catch (error) {
          return {
            ok: false,
            error: `invalid regular expression in ${name}${op}"${value}": ${(error as Error).message}`,
          };
        }
      }
      terms.push({ kind: "label", name, op: op as "=" | "!=" | "=~" | "!~", value });
    } else if (word !== undefined) {
      terms.push({ kind: "text", text: unquote(word) });
    }
  }
  return { ok: true, terms };
}

/** Whether a group's grouping labels satisfy every term (a missing label matches as the empty value, as in PromQL). */
export function matchesFilter(labels: GroupingLabels, terms: readonly FilterTerm[]): boolean {
  return terms.every((term) => {
    if (term.kind === "text") {
      const needle = term.text.toLowerCase();
      return Object.entries(labels).some(([k, v]) => `${k}="${v}"`.toLowerCase().includes(needle));
    }
    const actual = labels[term.name] ?? "";
    switch (term.op) {
      case "=":
        return actual === term.value;
      case "!=":
        return actual !== term.value;
      case "=~":
        return anchoredRegExp(term.value).test(actual);
      default:
        return !anchoredRegExp(term.value).test(actual);
    }
  });
}

function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, "$1");
}
