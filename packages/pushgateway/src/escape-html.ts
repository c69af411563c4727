/**
 * Escapes text for HTML content and double-quoted attributes: `&`, `<`, `>`, `"` (the characters the status page's
 * labels and the 301 body can carry from a request).
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
