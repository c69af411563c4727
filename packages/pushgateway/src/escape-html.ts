/**
 * Escapes text for HTML content and double-quoted attributes: `&`, `<`, `>`, `"` (the characters the status page's
 * labels can carry from a request; a redirect's body is escaped as net/http escapes it, http/go-redirect.ts).
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
