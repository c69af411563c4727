import type { ReportV1 } from "../report.js";

// Plain scalars PyYAML (cloud-init's YAML library, the YAML 1.1 reader of most Python consumers) resolves to
// another type than str: the implicit resolvers of yaml/resolver.py (bool, float, int, merge, null, timestamp,
// value), in that order. The `yaml` library's YAML 1.2 core schema quotes only some of them (`null`, `1e3`),
// so `yes`, `0b1`, `1_000`, `12:30` or `2001-12-14` came back from PyYAML as a bool, a number or a date.
const PYYAML_RESOLVED = new RegExp(
  [
    "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
    "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?" +
      "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$",
    "^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
    "^(?:<<)$",
    "^(?:~|null|Null|NULL|)$",
    "^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?" +
      "(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
    "^(?:=)$",
  ].join("|"),
);
// What PyYAML cannot read outside double quotes: a character its reader refuses (yaml/reader.py NON_PRINTABLE:
// C0 but tab/LF/CR, DEL, C1 but NEL, surrogates, U+FFFE/U+FFFF), one its scanner takes as a line break (NEL, LS,
// PS), a byte order mark, and a tab (a plain scalar ends at it).
const NEEDS_ESCAPES =
  /[^\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]/u;
// Spaces and line breaks only: in a block scalar PyYAML takes the spaces for indentation (" \n" read "\n").
const BLANK = /^[ \n]+$/;
// Written raw by the `yaml` library inside double quotes (it escapes as JSON.stringify does), so escaped here;
// NEEDS_ESCAPES put every string holding one in double quotes.
const RAW_IN_DOUBLE_QUOTES = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;

/**
 * Report v1 as YAML, keys in the report's order, 2-space indent, no line folding (the `yaml` library, loaded on
 * use), each string written so that PyYAML's safe_load reads it back as the same string.
 */
export async function formatYaml(report: ReportV1): Promise<string> {
  const { Document, Scalar, visit } = await import("yaml");
  const doc = new Document(report);
  visit(doc, {
    Scalar(_, node) {
      const value = node.value;
      if (typeof value === "string" && [PYYAML_RESOLVED, NEEDS_ESCAPES, BLANK].some((re) => re.test(value)))
        node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  // A line feed stays `\n` in double quotes: the library's multi-line form lost the space of a backslash, a space
  // and a line break (`\\ ` then the break), which PyYAML then strips.
  const text = doc.toString({
    indent: 2,
    lineWidth: 0,
    doubleQuotedMinMultiLineLength: Number.POSITIVE_INFINITY,
  });
  return text.replace(RAW_IN_DOUBLE_QUOTES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
