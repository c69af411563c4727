// The tabs libyaml refuses outside flow collections and quoted scalars, which the `yaml` package reads as white
// space (yaml.v2 scannerc.go): yaml_parser_scan_to_next_token eats a tab only in a flow collection or where no simple
// key may start, so a tab where a token would start (after a line's leading spaces, or after a `-`, `?` or `:`
// indicator at its start) is `found character that cannot start any token`; and a tab in a block scalar's
// indentation is `found a tab character where an indentation space is expected`
// (yaml_parser_scan_block_scalar_breaks).
import { isMap, isPair, isScalar, isSeq, Scalar } from "yaml";

/** A place where libyaml refuses a tab: its 0-based line and libyaml's words. */
export interface TabError {
  readonly line: number;
  readonly message: string;
}

/**
 * The first tab libyaml would refuse in `text`, given the parsed document's contents (whose flow collections,
 * quoted and multi-line plain scalars let tabs be), or undefined.
 */
export function libyamlTabError(text: string, contents: unknown): TabError | undefined {
  const free: [number, number][] = [];
  const blocks: [number, number][] = [];
  const plains: Plain[] = [];
  collect(contents, { free, blocks, plains }, -1);
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => lineStarts.filter((s) => s <= offset).length - 1;
  // A plain scalar's scan goes on over the blank lines after it (scannerc.go yaml_parser_scan_plain_scalar), so no
  // token starts on them; a tab there left of the scalar's indentation (its collection's column + 1) is refused.
  for (const { range, parent } of plains) {
    const end = pastBlankLines(text, range[1]);
    const indent = parent < 0 ? 0 : parent - (text.lastIndexOf("\n", parent - 1) + 1) + 1;
    for (let i = text.indexOf("\n", range[1]) + 1; i > 0 && i < end; i = text.indexOf("\n", i) + 1) {
      const lineEnd = text.indexOf("\n", i) < 0 ? text.length : text.indexOf("\n", i);
      const tab = text.slice(i, lineEnd).indexOf("\t");
      if (tab >= 0 && tab < indent)
        return { line: lineOf(i), message: "found a tab character that violate indentation" };
    }
    free.push([range[0], end]);
  }
  // Lines starting inside a free range or a block scalar are skipped: one sweep over the ranges sorted by start (a
  // hooks file of thousands of hooks has tens of thousands of both).
  const skip = [...free, ...blocks].sort((a, b) => a[0] - b[0]);
  let next = 0;
  let reach = -1;
  for (const [line, start] of lineStarts.entries()) {
    while (next < skip.length && (skip[next] as [number, number])[0] < start)
      reach = Math.max(reach, (skip[next++] as [number, number])[1]);
    if (start < reach) continue;
    if (tabWhereTokenStarts(text, start))
      return { line, message: "found character that cannot start any token" };
  }
  for (const [from, to] of blocks) {
    const found = blockIndentationTab(text, from, to);
    if (found !== undefined) {
      const line = lineStarts.filter((s) => s <= found).length - 1;
      return { line, message: "found a tab character where an indentation space is expected" };
    }
  }
  return undefined;
}

/** A plain scalar in block context, and where its block collection starts (-1: none). */
interface Plain {
  readonly range: [number, number];
  readonly parent: number;
}

/**
 * Ranges where libyaml takes tabs as any character (`free`), block scalars (header to end) and plain scalars in block
 * context, each with the start of the block collection it is in (`parent`).
 */
function collect(
  node: unknown,
  into: { free: [number, number][]; blocks: [number, number][]; plains: Plain[] },
  parent: number,
  inFlow = false,
): void {
  if (isScalar(node)) {
    const range = node.range;
    if (range === undefined || range === null) return;
    if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED)
      into.blocks.push([range[0], range[1]]);
    else if (node.type === Scalar.PLAIN && !inFlow && range[1] > range[0])
      into.plains.push({ range: [range[0], range[1]], parent });
    else into.free.push([range[0], range[1]]);
  } else if (isMap(node) || isSeq(node)) {
    const range = node.range;
    if (node.flow && range !== undefined && range !== null) into.free.push([range[0], range[1]]);
    const start = node.flow ? parent : (range?.[0] ?? parent);
    for (const item of node.items) collect(item, into, start, inFlow || node.flow === true);
  } else if (isPair(node)) {
    collect(node.key, into, parent, inFlow);
    collect(node.value, into, parent, inFlow);
  }
}

/**
 * The end of the lines of spaces and tabs only that follow `end` (the rest of its own line first), the last of them
 * possibly ending in a comment.
 */
function pastBlankLines(text: string, end: number): number {
  // Sticky, from `to` on: no copy of the rest of the file per scalar.
  const blank = /[ \t]*(#[^\n]*)?(\n|$)/y;
  let to = end;
  for (;;) {
    // The scan also ends at a comment after the blanks, which takes the rest of that line.
    blank.lastIndex = to;
    const m = blank.exec(text);
    if (m === null || m[0] === "") return to;
    to += m[0].length;
    if (m[2] === "" || m[1] !== undefined) return to;
  }
}

const isBlank = (c: string | undefined) =>
  c === undefined || c === " " || c === "\t" || c === "\n" || c === "\r";

/** Whether, after the line's spaces and any `-`, `?` or `:` indicators, the next character is a tab. */
function tabWhereTokenStarts(text: string, start: number): boolean {
  let i = start;
  for (;;) {
    while (text[i] === " ") i++;
    if (text[i] === "\t") return true;
    const c = text[i];
    if ((c === "-" || c === "?" || c === ":") && isBlank(text[i + 1])) i++;
    else return false;
  }
}

/**
 * The offset of a tab in a block scalar's indentation: on the lines before its first content line, or in the first
 * content line's indentation, and past that, a tab before the content's column.
 */
function blockIndentationTab(text: string, from: number, to: number): number | undefined {
  const header = text.indexOf("\n", from);
  // An explicit indentation indicator (`|2`) sets the column another way: not checked.
  if (header < 0 || /[1-9]/.test(text.slice(from, header))) return undefined;
  let indent: number | undefined;
  for (let start = header + 1; start < to; ) {
    const end = text.indexOf("\n", start) < 0 ? text.length : text.indexOf("\n", start);
    let i = start;
    while (text[i] === " " && (indent === undefined || i - start < indent)) i++;
    if (text[i] === "\t" && (indent === undefined || i - start < indent)) return i;
    if (indent === undefined && i < end && text[i] !== "\r") indent = i - start;
    start = end + 1;
  }
  return undefined;
}
