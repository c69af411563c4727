/**
 * Random strings for the values a boot status report carries (datasource, stage names, error messages, level
 * names), made to trouble its encoders: what YAML 1.1 (PyYAML) and YAML 1.2 resolve to other types, YAML
 * indicators, characters JSON or YAML must escape, line breaks of every kind, lone surrogates, every Unicode plane
 * and lines long enough to be folded.
 */

/** Plain scalars PyYAML (yaml/resolver.py) or YAML 1.2 read as something else than a string, and YAML markers. */
const RESOLVED = [
  ...["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "n", "Y", "N"],
  ...["true", "True", "TRUE", "false", "False", "null", "Null", "NULL", "~", "=", "<<"],
  ...[
    "1e3",
    "1E3",
    "1.0e+3",
    "1e+3",
    "6.8523015e+5",
    "685.230_15e+03",
    ".5",
    "+.5",
    "1.",
    "3.",
    "-1.5",
    "0.0",
  ],
  ...[".inf", "-.Inf", "+.INF", ".nan", ".NaN", "190:20:30.15"],
  ...[
    "0",
    "-0",
    "+1",
    "0777",
    "0o7",
    "0x1F",
    "0X1f",
    "0x_1",
    "0b101",
    "-0b1",
    "0b1_0",
    "1_000",
    "12:30",
    "190:20:30",
  ],
  ...["2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2002-12-14 1:2:3"],
  ...["-", "?", ":", "#", "|", ">", "!", "&", "*", "%", "@", "`", ",", "[", "]", "{", "}", "'", '"'],
  ...[
    "---",
    "...",
    "--- x",
    "... x",
    "%YAML 1.1",
    "!!str",
    "&a",
    "*a",
    "? x",
    "- x",
    ": x",
    "x:",
    "x: y",
    "x #y",
  ],
];
const WORDS = [
  "DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud][dsmode=net]",
  "DataSourceEc2Local",
  "Failed to run module scripts_user",
  "('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))",
  "Key 'ssh_authorized_keys' is deprecated in 22.2",
  "WARNING",
  "DEPRECATED",
  "init-local",
  "modules-final",
  "Running in stage",
  "{0} %s {}",
  "x",
];
const PIECES = [
  ": ",
  " #",
  "#",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\n\n",
  " \n",
  "\n ",
  "\\",
  "'",
  '"',
  "''",
];
/** Characters escaped by JSON, refused raw or read as line breaks by YAML readers, and the other planes. */
const CHARACTERS = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  "\u007f",
  "\u0080",
  "\u0085",
  "\u009f",
  "\u00a0",
  "\u00e4",
  "\u0301",
  "\u200b",
  "\u202e",
  "\u2028",
  "\u2029",
  "\u3042",
  "\ud7ff",
  "\ue000",
  "\ufeff",
  "\ufffd",
  "\ufffe",
  "\uffff",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\udc00\ud800",
  "😀",
  "\u{1d11e}",
  "\u{10ffff}",
];

/** One random string from `rand` (a mulberry32 generator). */
export function randomScalar(rand: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const roll = rand();
  if (roll < 0.25) {
    const word = pick(RESOLVED);
    // Surrounding spaces or a case change keep some of them special and end it for others.
    const variant = rand();
    return variant < 0.15 ? ` ${word}` : variant < 0.3 ? `${word} ` : word;
  }
  if (roll < 0.32) {
    // A long line that a line-width of 80 would fold, with spaces (fold points) and sometimes without.
    const words = Array.from({ length: 10 + Math.floor(rand() * 40) }, () => pick(WORDS));
    return words.join(rand() < 0.8 ? " " : "");
  }
  if (roll < 0.36)
    return String.fromCodePoint(Math.floor(rand() * 0x110000)).repeat(1 + Math.floor(rand() * 3));
  const parts: string[] = [];
  const count = 1 + Math.floor(rand() * 5);
  for (let i = 0; i < count; i++) {
    const kind = rand();
    if (kind < 0.35) parts.push(pick(WORDS));
    else if (kind < 0.6) parts.push(pick(PIECES));
    else if (kind < 0.85) parts.push(pick(CHARACTERS));
    else if (kind < 0.95) parts.push(pick(RESOLVED));
    else parts.push(String.fromCodePoint(Math.floor(rand() * 0x110000)));
  }
  return parts.join("");
}
