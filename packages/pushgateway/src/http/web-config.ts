import { createHash, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { UsageError } from "../errors.js";

/** What `--web.config.file` (exporter-toolkit format) configures: TLS and basic auth. */
export interface WebConfig {
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer };
  /** Whether an `Authorization` header passes basic auth (always true when none is configured). */
  authorize(header: string | undefined): boolean;
}

/**
 * Reads the exporter-toolkit web config: `tls_server_config.cert_file`/`key_file` and `basic_auth_users` (user →
 * bcrypt hash, as upstream; `sha256:<hex>` is also accepted). A hash in neither form stops the start.
 */
export async function loadWebConfig(path: string): Promise<WebConfig> {
  if (path === "") return { authorize: () => true };
  // Loaded only with a web config: a plain gateway does not carry the YAML and bcrypt code (~10 MB resident).
  const { parse: parseYaml } = await import("yaml");
  const { default: bcrypt } = await import("bcryptjs");
  const doc = (parseYaml(await readFile(path, "utf8")) ?? {}) as {
    tls_server_config?: { cert_file?: string; key_file?: string };
    basic_auth_users?: Record<string, string>;
  };
  const base = dirname(resolve(path));
  const tlsConfig = doc.tls_server_config;
  const tls =
    tlsConfig?.cert_file && tlsConfig.key_file
      ? {
          cert: await readFile(resolve(base, tlsConfig.cert_file)),
          key: await readFile(resolve(base, tlsConfig.key_file)),
        }
      : undefined;
  const users = doc.basic_auth_users ?? {};
  for (const [user, hash] of Object.entries(users)) {
    if (!/^sha256:[0-9a-f]{64}$/.test(hash) && !/^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) {
      throw new UsageError(
        `web config: the password hash of user "${user}" must be a bcrypt hash ("$2y$...", e.g. from htpasswd -nBC 10) or "sha256:<hex>"`,
      );
    }
  }
  return {
    ...(tls ? { tls } : {}),
    authorize(header) {
      if (Object.keys(users).length === 0) return true;
      const m = /^Basic (.+)$/.exec(header ?? "");
      if (!m) return false;
      const decoded = Buffer.from(m[1] ?? "", "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      const expected = users[decoded.slice(0, colon)];
      if (colon < 0 || expected === undefined) return false;
      // bcrypt's comparison is constant-time in the hash; results are not cached (upstream caches, a speed-up only).
      if (expected.startsWith("$2")) return bcrypt.compareSync(decoded.slice(colon + 1), expected);
      const actual = Buffer.from(
        `sha256:${createHash("sha256")
          .update(decoded.slice(colon + 1))
          .digest("hex")}`,
      );
      return actual.length === expected.length && timingSafeEqual(actual, Buffer.from(expected));
    },
  };
}
