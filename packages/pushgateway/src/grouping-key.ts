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
  const m = /^job(@base64)?\/([^/]*)(.*)$/.exec(rest);
  if (!m) throw new GroupingKeyError("job name is required");
  let job = m[2] ?? "";
  if (m[1]) {
    const decoded = decodeBase64Url(job);
    if (decoded === undefined)
      throw new GroupingKeyError(
        `invalid base64 encoding in job name "": illegal base64 data at input byte ${badByte(job)}`,
      );
    job = decoded;
  }
  const labels: Record<string, string> = {};
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
        if (decoded === undefined) {
          throw new GroupingKeyError(
            `invalid base64 encoding for label ${written}=${goQuoteLossless(value)}: illegal base64 data at input byte ${badByte(value)}`,
          );
        }
        value = decoded;
      }
      labels[name] = value;
    }
  }
  if (job === "") throw new GroupingKeyError("job name is required");
  labels.job = job;
  return labels;
}

/** A stable string key for a grouping: label names sorted, name and value joined by 0xFF. */
export function groupKey(labels: GroupingLabels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\xff${labels[k]}`)
    .join("\xff");
}

/** RFC 4648 §5 base64url with trailing `=` stripped, then decoded strictly; undefined when invalid. */
function decodeBase64Url(text: string): string | undefined {
  const raw = withoutPadding(text);
  if (!/^[A-Za-z0-9_-]*$/.test(raw) || raw.length % 4 === 1) return undefined;
  // Invalid UTF-8 kept as escapes (exposition/lossless-utf8.ts): the push is refused naming the bytes, not stored altered.
  return decodeUtf8Lossless(Buffer.from(raw, "base64url"));
}

function badByte(text: string): number {
  const raw = withoutPadding(text);
  const i = raw.search(/[^A-Za-z0-9_-]/);
  return i >= 0 ? i : raw.length - 1;
}

/** Without trailing `=`. By hand: `/=+$/` backtracks quadratically over a long run of `=` inside a client's path. */
function withoutPadding(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  return text.slice(0, end);
}
