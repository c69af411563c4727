import type { EscapingScheme } from "./negotiate.js";

const LEGACY_METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LEGACY_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A metric name of the classic character set, written bare in the text format. */
export function isLegacyMetricName(name: string): boolean {
  return LEGACY_METRIC_NAME.test(name);
}

/** A label name of the classic character set. */
export function isLegacyLabelName(name: string): boolean {
  return LEGACY_LABEL_NAME.test(name);
}

/** A name valid under UTF-8 validation (prometheus/common model `UTF8Validation`): non-empty, valid UTF-8. */
export function isUtf8Name(name: string): boolean {
  return name !== "" && !/\p{Cs}/u.test(name);
}

/** A name quoted as the text format writes it with `escaping=allow-utf-8` (`"`, `\` and newline escaped). */
export function quoteName(name: string): string {
  return `"${name.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

const isLegacyRune = (c: string, i: number) => /[a-zA-Z_:]/.test(c) || (i > 0 && c >= "0" && c <= "9");

/**
 * A name as a scrape that asked for `scheme` must see it (prometheus/common model `EscapeName`): `allow-utf-8`
 * unchanged; `underscores` each character outside the classic set as `_`; `dots` `.` as `_dot_`, `_` as `__`,
 * others as `__`; `values` a `U__` prefix, `_` doubled, others as `_<hex code point>_`. Classic names stay as they
 * are (but `dots` still doubles their underscores).
 */
export function escapeName(name: string, scheme: EscapingScheme): string {
  if (name === "" || scheme === "allow-utf-8") return name;
  const chars = [...name];
  switch (scheme) {
    case "underscores":
      if (isLegacyMetricName(name)) return name;
      return chars.map((c, i) => (isLegacyRune(c, i) ? c : "_")).join("");
    case "dots":
      return chars
        .map((c, i) => (c === "_" ? "__" : c === "." ? "_dot_" : isLegacyRune(c, i) ? c : "__"))
        .join("");
    case "values":
      if (isLegacyMetricName(name)) return name;
      return `U__${chars
        .map((c, i) =>
          c === "_" ? "__" : isLegacyRune(c, i) ? c : `_${(c.codePointAt(0) ?? 0xfffd).toString(16)}_`,
        )
        .join("")}`;
  }
}

/**
 * Undoes value-encoding escaping in a label name of a push path (prometheus/common model `UnescapeName` with
 * `ValueEncodingEscaping`, what upstream applies with `--push.enable-utf8-names`): `U__foo_2e_bar` is `foo.bar`,
 * `__` one `_`; a name without the prefix, or with an invalid sequence, is returned unchanged.
 */
export function unescapeValueEncoding(name: string): string {
  if (!name.startsWith("U__")) return name;
  const escaped = name.slice(3);
  let out = "";
  for (let i = 0; i < escaped.length; i++) {
    if (escaped[i] !== "_") {
      out += escaped[i];
      continue;
    }
    i++;
    if (i >= escaped.length) return name;
    if (escaped[i] === "_") {
      out += "_";
      continue;
    }
    let code = 0;
    let digits = 0;
    for (;;) {
      if (i >= escaped.length || digits >= 6) return name;
      const c = (escaped[i] ?? "").toLowerCase();
      if (c === "_") break;
      const v = Number.parseInt(c, 16);
      if (Number.isNaN(v)) return name;
      code = code * 16 + v;
      digits++;
      i++;
    }
    // utf8.ValidRune: not a surrogate, at most U+10FFFF.
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return name;
    out += String.fromCodePoint(code);
  }
  return out;
}
