/**
 * Go's ServeMux `cleanPath` (net/http server.go; gorilla/mux has the same): `path.Clean` of the rooted path, with a
 * trailing slash kept. Both servers redirect (301) a request whose path is not clean to the cleaned one.
 *
 * @example cleanPath("/a//b/../c/") // => "/a/c/"
 */
export function cleanPath(path: string): string {
  if (path === "") return "/";
  // Most paths are clean already: no empty, `.` or `..` segment.
  if (path.startsWith("/") && !/\/\/|\/\.\.?(\/|$)/.test(path)) return path;
  const rooted = path.startsWith("/") ? path : `/${path}`;
  const parts: string[] = [];
  for (const part of rooted.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const cleaned = `/${parts.join("/")}`;
  return rooted.endsWith("/") && cleaned !== "/" ? `${cleaned}/` : cleaned;
}
