/**
 * `text` with the credentials of every URL in it (`scheme://user:password@host`) replaced by `***`: a token written
 * into `CODEHOST_API_URL` or a mirror (`https://user:token@artifactory.example/…`) is sent as the URL says, but never
 * printed or written to the store. Works on text that does not parse as a URL too (a mistyped value is echoed in its
 * error message).
 */
export function hideCredentials(text: string): string {
  return text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@\s]*@/g, "$1***@");
}
