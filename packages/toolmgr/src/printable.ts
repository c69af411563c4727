/**
 * A message as a terminal shows it harmlessly: messages quote values from files a cloned repository brings
 * (`toolmgr.toml`, `toolmgr.lock`), and a control character there (an escape sequence that clears the screen or
 * rewrites the line) is shown as `\x1b`, never sent to the terminal. Line breaks and tabs stay.
 */
export function printable(message: string): string {
  let shown = "";
  for (const c of message) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== "\n" && c !== "\t") || (code >= 0x7f && code <= 0x9f);
    shown += control ? `\\x${code.toString(16).padStart(2, "0")}` : c;
  }
  return shown;
}
