// A GET over HTTP/2 (ALPN h2) with node's http2 client, server certificate not checked.
import { connect } from "node:http2";

/** GETs `path` from `base` (`https://host:port`) over HTTP/2; the protocol ALPN chose, the status and the body. */
export function http2Get(
  base: string,
  path = "/-/healthy",
): Promise<{ alpn: string | false | undefined; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = connect(base, { rejectUnauthorized: false });
    session.on("error", reject);
    const req = session.request({ ":path": path });
    let status = 0;
    let body = "";
    req.on("response", (h) => {
      status = Number(h[":status"]);
    });
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ alpn, status, body });
    });
    req.on("error", reject);
    req.end();
  });
}
