import { createRequire } from "node:module";

type Crypto = typeof import("node:crypto");
let crypto: Crypto | undefined;

/**
 * The first 16 hex digits of the SHA-256 of `data`: the status page's group ids and the static assets' versions.
 * node:crypto (about 2.4 MiB resident) is loaded at the first call, not at start: a gateway only ever scraped and
 * pushed to never needs it (bench/pushgateway/README.md).
 */
export function shortHash(data: string | Buffer): string {
  crypto ??= createRequire(import.meta.url)("node:crypto") as Crypto;
  return crypto.createHash("sha256").update(data).digest("hex").slice(0, 16);
}
