import { parseGroupSelector, selectorMatches } from "./group-selector.js";
import type { GroupingLabels } from "./grouping-key.js";

/** The `match[]` selectors of a status page request, parsed once. */
export interface GroupSelection {
  /** The selectors as given, empty ones left out. */
  readonly match: readonly string[];
  /** The first selector's parse error (the selection then selects every group), or undefined. */
  readonly error: string | undefined;
  /** `match[]=…&match[]=…`, URL-encoded, for the delete request of the selected groups. */
  readonly query: string;
  /** Whether a group is selected: by one of the selectors, or by none given. */
  selects(labels: GroupingLabels): boolean;
}

/**
 * The status page's `?match[]=` (beyond upstream): the selectors of `GET /api/v1/groups`, a union, parsed by
 * group-selector.ts. A selector that does not parse selects nothing away: the page shows every group and the
 * parser's message, and offers no deletion of a selection.
 */
export function groupSelection(given: readonly string[]): GroupSelection {
  const match = given.map((m) => m.trim()).filter((m) => m !== "");
  const query = new URLSearchParams(match.map((m): [string, string] => ["match[]", m])).toString();
  try {
    const selectors = match.map(parseGroupSelector);
    return {
      match,
      error: undefined,
      query,
      selects: (labels) => selectors.length === 0 || selectors.some((s) => selectorMatches(labels, s)),
    };
  } catch (error) {
    return { match, error: `match[]: ${(error as Error).message}`, query, selects: () => true };
  }
}
