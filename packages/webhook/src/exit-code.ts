import { UsageError, type WebhookError } from "./errors.js";

/** A run that ended as asked (`-version`, `-help`, `-list-cipher-suites`, SIGINT/SIGTERM, a TLS load failure). */
export const EXIT_OK = 0;

/**
 * The exit code for an error that ends webhook, as upstream's: Go's flag package exits 2 on a usage error; every
 * other fatal error (`ListenError`, `PidfileError`, `DuplicateHookError`, `NoHooksError`, `PrivilegeError`,
 * `LogFileError`, a `TlsError` in the settings) is a `log.Fatal` there, exit 1.
 */
export function exitCodeFor(error: WebhookError): number {
  return error instanceof UsageError ? 2 : 1;
}
