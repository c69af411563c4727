import { GroupingKeyError } from "./errors.js";
import { decodeUtf8Lossless, goQuoteLossless } from "./exposition/lossless-utf8.js";
import { isUtf8Name, unescapeValueEncoding } from "./exposition/metric-names.js";

/** Grouping labels of a group, by name. `job` is always present. */
export type GroupingLabels = Readonly<Record<string, string>>;

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label name a push may use: Prometheus' label-name syntax, and not one of the reserved `__` names. */
export function isLabelName(name: string): boolean {
  return LABEL_NAME.test(name) && !name.startsWith("__");
}

/**
 * Parses the part of a push path after `/metrics/` (already percent-decoded, so `%2F` acts as a separator):
 * `job/<job>{/<label>/<value>}` or `job@base64/<b64>{...}`; `@base64` after a label name marks a base64url value,
 * padding optional (upstream handler/push.go `splitLabels`). The URL's job always wins over a `job` pair. With
 * `utf8` (`--push.enable-utf8-names`) a label name may be value-encoding escaped (`U__foo_2e_bar` is `foo.bar`) and
 * any UTF-8 name is valid; the reserved `__` prefix is judged on the name as written, as upstream does.
 *
 * @throws {GroupingKeyError} with upstream's messages
 */
export function parseGroupingKey(rest: string, options: { utf8?: boolean } = {}): GroupingLabels {
  // [\s\S]: a label string may hold a line feed or carriage return (`%0A`, `%0D`), which `.` does not match.
  const m = /^job(@base64)?\/([^/]*)([\s\S]*)$/.exec(rest);
  if (!m) throw new GroupingKeyError("job name is required");
  let job = m[2] ?? "";
  if (m[1]) {
    const decoded = decodeBase64Url(job);
    if ("bad" in decoded)
      throw new GroupingKeyError(
        `invalid base64 encoding in job name ${goQuoteLossless(decoded.partial)}: illegal base64 data at input byte ${decoded.bad}`,
      );
    job = decoded.value;
  }
  // No prototype: a label named `__proto__` (`U______proto____` under --push.enable-utf8-names) is a key like any other,
  // so the push is judged with it (a reserved name) instead of going, without it, to another group.
  const labels: Record<string, string> = Object.create(null);
  // Upstream's splitLabels (handler/push.go; its messages quote with %q): the part after the job, leading slash included, is split on "/";
  // a single trailing slash therefore leaves an empty last value (`/b/` is b="") and `/b/c/` is an odd count.
  const labelString = m[3] ?? "";
  if (labelString.length > 1) {
    const parts = labelString.split("/");
    if (parts.length % 2 === 0)
      throw new GroupingKeyError(`odd number of components in label string ${goQuoteLossless(labelString)}`);
    for (let i = 1; i < parts.length - 1; i += 2) {
      let name = parts[i] ?? "";
      let value = parts[i + 1] ?? "";
      const base64 = name.endsWith("@base64");
      if (base64) name = name.slice(0, -"@base64".length);
      const written = name;
      if (options.utf8) {
        name = unescapeValueEncoding(name);
        if (!isUtf8Name(name) || written.startsWith("__"))
          throw new GroupingKeyError(`improper label name ${goQuoteLossless(written)}`);
      } else if (!isLabelName(name))
        throw new GroupingKeyError(`improper label name ${goQuoteLossless(name)}`);
      if (base64) {
        const decoded = decodeBase64Url(value);
        if ("bad" in decoded) {
          throw new GroupingKeyError(
            `invalid base64 encoding for label ${written}=${goQuoteLossless(value)}: illegal base64 data at input byte ${decoded.bad}`,
          );
        }
        value = decoded.value;
      }
      labels[name] = value;
    }
  }
  if (job === "") throw new GroupingKeyError("job name is required");
  labels.job = job;
  return { ...labels };
}

/** A stable string key for a grouping: label names sorted, names and values joined by {@link joinKey}. */
export function groupKey(labels: GroupingLabels): string {
  const parts: string[] = [];
  for (const k of Object.keys(labels).sort()) parts.push(k, labels[k] ?? "");
  return joinKey(parts);
}

/**
 * `parts` joined by U+00FF, a U+00FE or U+00FF inside a part preceded by U+00FE, so two different lists never join to
 * the same key: a value may hold `ÿ` (`/metrics/job/j/a/xÿbÿy` was the group of `/metrics/job/j/a/x/b/y`, and a
 * push or delete of one replaced or deleted the other). Parts without either character join as before.
 */
export function joinKey(parts: readonly string[]): string {
  return parts.map((p) => (/[\xfe\xff]/.test(p) ? p.replace(/[\xfe\xff]/g, "\xfe$&") : p)).join("\xff");
}

/**
 * Go's `base64.RawURLEncoding.DecodeString` of the text with trailing `=` stripped (upstream's decodeBase64): the value,
 * or the offset Go's CorruptInputError names and the bytes Go decoded before it (whole quanta of four characters,
 * which upstream quotes in the job's error). `\r` and `\n` are skipped, as Go skips them.
 */
function decodeBase64Url(text: string): { value: string } | { bad: number; partial: string } {
  const raw = withoutPadding(text);
  let clean = "";
  const decode = (chars: string) => decodeUtf8Lossless(Buffer.from(chars, "base64url"));
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) continue;
    if (!isBase64UrlChar(c))
      return { bad: i, partial: decode(clean.slice(0, clean.length - (clean.length % 4))) };
    clean += raw[i];
  }
  if (clean.length % 4 === 1) return { bad: raw.length - 1, partial: decode(clean.slice(0, -1)) };
  // Invalid UTF-8 kept as escapes (exposition/lossless-utf8.ts): the push is refused naming the bytes, not stored altered.
  return { value: decode(clean) };
}

function isBase64UrlChar(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x5f
  );
}

/** Without trailing `=`. By hand: `/=+$/` backtracks quadratically over a long run of `=` inside a client's path. */
function withoutPadding(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  return text.slice(0, end);
}
