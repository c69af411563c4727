import { SourceError } from "../errors.js";

/** One allowed download host for `http` recipes: the one repository it serves and why a release asset won't do. */
export interface HostRule {
  readonly host: string;
  readonly repo: string;
  readonly reason: string;
}

/**
 * Parses `policy/hosts.toml` (`[hosts."<host>"]` tables with `repo` and `reason`).
 *
 * @throws {SourceError} when an entry lacks its repository or reason
 */
export function parseHostPolicy(raw: unknown): ReadonlyMap<string, HostRule> {
  const hosts = (raw as { hosts?: unknown } | null)?.hosts;
  if (typeof hosts !== "object" || hosts === null)
    throw new SourceError('Cannot parse policy/hosts.toml: no [hosts."<host>"] tables');
  const rules = new Map<string, HostRule>();
  for (const [host, entry] of Object.entries(hosts as Record<string, unknown>)) {
    const { repo, reason } = (entry ?? {}) as Record<string, unknown>;
    if (typeof repo !== "string" || typeof reason !== "string" || reason.length === 0) {
      throw new SourceError(`Cannot parse policy/hosts.toml: host "${host}" needs "repo" and "reason"`);
    }
    rules.set(host.toLowerCase(), { host: host.toLowerCase(), repo, reason });
  }
  return rules;
}

/** Whether `host` may serve artifacts of `repo` under type `http`. */
export function hostAllows(
  policy: ReadonlyMap<string, HostRule>,
  options: { host: string; repo: string },
): boolean {
  return policy.get(options.host.toLowerCase())?.repo.toLowerCase() === options.repo.toLowerCase();
}
