// libyaml's reader refuses input that is not UTF-8 before parsing it (yaml.v2 readerc.go
// yaml_parser_update_buffer); upstream's hooks loader hands the template's output to it as bytes, so a template that
// writes half a character (`{{ slice "é" 0 1 }}`) makes the file fail with the reader's words.

/**
 * The libyaml reader error for the first character of `bytes` (a byte string, one char per byte) it refuses: a
 * sequence that is not UTF-8, or a control character (the reader checks each character in turn, so a `\v` written
 * before half a character is what it names), or undefined when it takes all of them.
 *
 * @example libyamlUtf8Error("a\xc3b") // => "invalid trailing UTF-8 octet"
 */
export function libyamlUtf8Error(bytes: string): string | undefined {
  for (let i = 0; i < bytes.length; ) {
    const octet = bytes.charCodeAt(i);
    const width =
      (octet & 0x80) === 0
        ? 1
        : (octet & 0xe0) === 0xc0
          ? 2
          : (octet & 0xf0) === 0xe0
            ? 3
            : (octet & 0xf8) === 0xf0
              ? 4
              : 0;
    if (width === 0) return "invalid leading UTF-8 octet";
    if (i + width > bytes.length) return "incomplete UTF-8 octet sequence";
    let value =
      width === 1 ? octet & 0x7f : width === 2 ? octet & 0x1f : width === 3 ? octet & 0x0f : octet & 0x07;
    for (let k = 1; k < width; k++) {
      const trailing = bytes.charCodeAt(i + k);
      if ((trailing & 0xc0) !== 0x80) return "invalid trailing UTF-8 octet";
      value = (value << 6) + (trailing & 0x3f);
    }
    const minimum = [0, 0, 0x80, 0x800, 0x10000][width] ?? 0;
    if (value < minimum) return "invalid length of a UTF-8 sequence";
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return "invalid Unicode character";
    if (!printable(value)) return "control characters are not allowed";
    i += width;
  }
  return undefined;
}

/** libyaml's printable characters: tab, line ends and the rest but C0 and C1 controls (NEL is one), U+FFFE, U+FFFF. */
function printable(value: number): boolean {
  return (
    value === 0x09 ||
    value === 0x0a ||
    value === 0x0d ||
    (value >= 0x20 && value <= 0x7e) ||
    value === 0x85 ||
    (value >= 0xa0 && value <= 0xd7ff) ||
    (value >= 0xe000 && value <= 0xfffd) ||
    value >= 0x10000
  );
}
