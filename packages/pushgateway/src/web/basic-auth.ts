import { isUtf8 } from "node:buffer";
import { createHash, hash as digest, randomBytes, timingSafeEqual } from "node:crypto";
import { Worker } from "node:worker_threads";
import { goQuote } from "@local/go-compat/quote";
import { AuthCache } from "./auth-cache.js";
import type { BcryptJob } from "./bcrypt-worker.js";

/**
 * exporter-toolkit web/handler.go: an unknown user is checked against this bcrypt hash of "fakepassword", so the time
 * an answer takes does not tell which users exist.
 */
const FAKE_HASH = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

/** Checks basic-auth credentials against the configured users, as exporter-toolkit's webHandler does. */
export interface BasicAuth {
  /**
   * Whether `header` (the request's `Authorization`) names a configured user with the right password. Each
   * (user, hash, password) is verified once and the verdict cached while that hash is configured, as upstream's
   * cache does; bcrypt runs on a worker thread.
   */
  check(users: ReadonlyMap<string, string>, header: string | undefined): Promise<boolean>;
  /** Stops the worker thread (tests; the worker is unref'd and never keeps the process alive). */
  close(): Promise<void>;
}

/** Creates the checker; the worker starts at the first bcrypt comparison. */
export function createBasicAuth(): BasicAuth {
  // The cache key is a SHA-256 of a secret of this process and the credentials, not the password itself: upstream
  // keys by the hex of the plaintext, we keep no plaintext password in memory past the request. (One-shot hash: a
  // quarter of an HMAC object's cost per request.)
  const keySecret = randomBytes(32).toString("hex");
  const cache = new AuthCache();
  // Concurrent requests with the same credentials share one comparison (upstream serialises them on a mutex and the
  // later ones find the cached verdict).
  const pending = new Map<string, Promise<boolean>>();
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, (ok: boolean) => void>();
  const compare = (password: string, hash: string): Promise<boolean> => {
    if (worker === undefined) {
      worker = new Worker(new URL("./bcrypt-worker.js", import.meta.url));
      worker.unref();
      worker.on("message", (m: { id: number; ok: boolean }) => {
        waiting.get(m.id)?.(m.ok);
        waiting.delete(m.id);
      });
      worker.on("error", () => {
        // A worker that died answers nothing more: every waiting check fails closed, the next one starts a worker.
        for (const resolve of waiting.values()) resolve(false);
        waiting.clear();
        worker = undefined;
      });
    }
    const id = nextId++;
    const job: BcryptJob = { id, password, hash };
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker?.postMessage(job);
    });
  };
  const verify = async (password: string, hash: string): Promise<boolean> => {
    if (hash.startsWith("sha256:")) {
      // Beyond upstream (kept from before): `sha256:<hex>`, compared in constant time.
      const actual = Buffer.from(`sha256:${createHash("sha256").update(password).digest("hex")}`);
      const expected = Buffer.from(hash);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    }
    // A hash Go's bcrypt cannot read never verifies (CompareHashAndPassword returns its error).
    if (bcryptCostError(Buffer.from(hash)) !== undefined) return false;
    return compare(password, goCanonicalBcrypt(hash));
  };
  return {
    async check(users, header) {
      if (users.size === 0) return true;
      const credentials = parseBasicAuth(header);
      if (credentials === undefined) return false;
      const configured = users.get(credentials.user);
      const hash = configured ?? FAKE_HASH;
      const key = digest(
        "sha256",
        `${keySecret}:${hex(credentials.user)}:${hex(hash)}:${hex(credentials.password)}`,
        "base64",
      );
      let ok = cache.get(key);
      if (ok === undefined) {
        let verdict = pending.get(key);
        if (verdict === undefined) {
          verdict = verify(credentials.password, hash).then((matched) => {
            const result = configured !== undefined && matched;
            cache.set(key, result);
            pending.delete(key);
            return result;
          });
          pending.set(key, verdict);
        }
        ok = await verdict;
      }
      return ok && configured !== undefined;
    },
    async close() {
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}

function hex(s: string): string {
  return Buffer.from(s, "utf8").toString("hex");
}

/**
 * Go's `Request.BasicAuth`: the scheme compared case-insensitively, standard base64, split at the first colon;
 * anything else is no credentials.
 */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined || header.length < 6 || header.slice(0, 6).toLowerCase() !== "basic ")
    return undefined;
  const encoded = header.slice(6);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(encoded, "base64");
  // Go compares the bytes; decoded as UTF-8 they would turn to U+FFFD, and any such bytes would then pass for a
  // password that holds U+FFFD. Credentials that are not UTF-8 are refused (bcryptjs hashes strings, so a hash made
  // of such bytes cannot be checked here: README "Web configuration").
  if (!isUtf8(bytes)) return undefined;
  const decoded = bytes.toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The error of Go's `bcrypt.Cost` on these bytes, or undefined when it reads a cost. */
export function bcryptCostError(bytes: Buffer): string | undefined {
  // Go's %c of a byte is the character of that code point.
  const char = (at: number) => String.fromCharCode(bytes[at] ?? 0);
  if (bytes.length < 59) return "crypto/bcrypt: hashedSecret too short to be a bcrypted password";
  if (bytes[0] !== 0x24)
    return `crypto/bcrypt: bcrypt hashes must start with '$', but hashedSecret started with '${char(0)}'`;
  if ((bytes[1] ?? 0) > 0x32)
    return `crypto/bcrypt: bcrypt algorithm version '${char(1)}' requested is newer than current version '2'`;
  const at = bytes[2] === 0x24 ? 3 : 4;
  const digits = bytes.subarray(at, at + 2);
  // strconv.Atoi: an optional sign, then decimal digits.
  const text = digits.toString("latin1");
  if (!/^[+-]?[0-9]+$/.test(text)) return `strconv.Atoi: parsing ${goQuote(digits)}: invalid syntax`;
  const cost = Number(text);
  if (cost < 4 || cost > 31) return `crypto/bcrypt: cost ${cost} is outside allowed range (4,31)`;
  return undefined;
}

/**
 * The hash as Go's bcrypt compares it (golang.org/x/crypto/bcrypt `newFromHash`, then `hashed.Hash`): the cost read by
 * Atoi and written back in two digits, then, past the byte after the cost (whatever it is), 22 salt and at most 31
 * hash characters; anything longer is ignored, so `<hash>x` still verifies. The version bytes are only carried along
 * by Go; bcryptjs takes `$2b$` for them.
 */
function goCanonicalBcrypt(hash: string): string {
  const at = hash[2] === "$" ? 3 : 4;
  const cost = String(Number(hash.slice(at, at + 2))).padStart(2, "0");
  return `$2b$${cost}$${hash.slice(at + 3, at + 3 + 22 + 31)}`;
}
