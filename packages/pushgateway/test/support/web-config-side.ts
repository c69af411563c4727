// Our gateway and Debian's 1.5.1 started side by side with one `--web.config.file` (http-surface-fuzz.peers.test.ts):
// whether each serves or stops (and with which error), and requests with an `Authorization` header to either.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { PEER_GATEWAY } from "./peers.js";
import { freePort, GATEWAY_BIN, track } from "./processes.js";

/** A promise that fails after `ms` instead of waiting for ever on a side that stopped answering. */
export function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How a gateway started with a web config ended up: serving, or stopped with an error. */
export type Outcome = { served: false; error: string } | { served: true; child: ChildProcess; base: string };

/**
 * Starts a gateway and waits until it logs whether TLS is on (it then serves) or exits; the error it stopped with,
 * logfmt-unquoted: 1.5.1's `HTTP server stopped` err (it exits 0), ours' `Cannot load web config: <file>: ` message
 * (exit 1, README "Deliberate differences") without the hint ours adds to a bad hash.
 */
export async function startWith(peerSide: boolean, config: string): Promise<Outcome> {
  const port = await freePort();
  const args = [`--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${config}`];
  const child = peerSide
    ? spawn(PEER_GATEWAY, ["--persistence.file=", ...args], { stdio: ["ignore", "ignore", "pipe"] })
    : spawn(process.execPath, [GATEWAY_BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  track(child);
  let log = "";
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<Outcome>((resolve, reject) => {
    child.once("error", (e) =>
      reject(
        new Error(`Cannot start ${child.spawnfile}: ${e.message} (install Debian's prometheus-pushgateway)`),
      ),
    );
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
      const on = /msg="TLS is (en|dis)abled\."/.exec(log);
      // 1.5.1 logs it before ServeTLS, which may still refuse (HTTP/2's cipher check; it then logs the error and
      // exits a second later): serving is what lasts.
      if (on && timer === undefined)
        timer = setTimeout(() => {
          if (log.includes('msg="HTTP server stopped"')) return;
          resolve({ served: true, child, base: `${on[1] === "en" ? "https" : "http"}://127.0.0.1:${port}` });
        }, 300);
    });
    child.once("close", () => {
      clearTimeout(timer);
      const m =
        /msg="HTTP server stopped" err="((?:[^"\\]|\\.)*)"/.exec(log) ??
        /msg="Cannot load web config: [^:]*: ((?:[^"\\]|\\.)*)"/.exec(log);
      const error = (m?.[1] ?? log)
        .replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c))
        .replace(/ \(the password hash of user [\s\S]*$/, "")
        // Current exporter-toolkit names the file it could not read, and has inline certificates, which ours follows;
        // 1.5.1's does not.
        .replace(/^failed to read (?:cert|key)_file \([^)]*\): /, "failed to load X509KeyPair: ")
        .replace(/^missing one of (cert|key) or \1_file$/, "missing $1_file")
        // A file that is not YAML: both refuse, in their YAML library's words (libyaml's, the yaml package's).
        .replace(/^yaml: (?!unmarshal errors)[\s\S]*$/, "yaml: (not YAML)");
      resolve({ served: false, error });
    });
  });
  return deadline(ended, 20_000, `start with ${config}: ${log}`);
}

/** One request to a started gateway, over TLS when it serves TLS (its certificate not checked). */
export function authed(base: string, step: { method: string; path: string; auth: string | undefined }) {
  const url = new URL(base);
  const headers: Record<string, string> = step.auth === undefined ? {} : { Authorization: step.auth };
  const body = step.method === "PUT" ? "m 1\n" : undefined;
  return deadline(
    new Promise<{ status: number; text: string }>((resolve) => {
      const options = {
        host: url.hostname,
        port: url.port,
        path: step.path,
        method: step.method,
        headers,
        agent: false,
      };
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        { ...options, rejectUnauthorized: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const shown = [
              "www-authenticate",
              "x-frame-options",
              "x-content-type-options",
              "strict-transport-security",
              "x-xss-protection",
              "content-security-policy",
            ]
              .map((h) => `${h}: ${res.headers[h] ?? "-"}`)
              .join("\n");
            const text = Buffer.concat(chunks).toString();
            const status = res.statusCode ?? 0;
            // Bodies of answers the handler gave (a status page, a scrape) are compared elsewhere; refusals here.
            resolve({
              status,
              text: `${status}\n${shown}\n${status === 401 || status >= 500 ? `${res.headers["content-type"]}\n${text}` : ""}`,
            });
          });
        },
      );
      // A connection refused or cut (a TLS policy): compared as such, whatever the wording of either side's refusal.
      req.on("error", () => resolve({ status: -1, text: "no answer" }));
      req.end(body);
    }),
    10_000,
    `${step.method} ${base}${step.path}`,
  );
}
