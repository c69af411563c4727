/**
 * A sequential copy of a string. V8 keeps strings built by `+=` as rope nodes and `slice`s as views that pin the
 * whole push body; a stored series would carry either for as long as it lives. Copying once at push time keeps
 * the store at a fraction of the memory (bench/pushgateway/README.md).
 */
export function flatString(text: string): string {
  return text.length === 0 ? "" : Buffer.from(text, "utf8").toString("utf8");
}
