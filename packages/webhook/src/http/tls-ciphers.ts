import { GO_CIPHER_SUITES } from "@local/go-compat/tls-cipher-suites";
import { TlsError } from "../errors.js";

/** `-list-cipher-suites`: the suites usable at `-tls-min-version` or above, one Go name a line. */
export function listCipherSuites(minVersion: string): string {
  const only13 = minVersion === "1.3";
  return GO_CIPHER_SUITES.filter((s) => s.tls13 || !only13)
    .map((s) => `${s.go}\n`)
    .join("");
}

/**
 * `-cipher-suites`: Go names, comma-separated, as an OpenSSL cipher list for Node; empty means Node's defaults.
 *
 * @throws {TlsError} naming the first unknown suite, as upstream refuses it
 */
export function openSslCiphers(goNames: string): string | undefined {
  if (goNames === "") return undefined;
  return goNames
    .split(",")
    .map((want) => {
      const suite = GO_CIPHER_SUITES.find((s) => s.go === want);
      if (suite === undefined) throw new TlsError(`error: unknown TLS cipher suite: ${want}`);
      return suite.openssl;
    })
    .join(":");
}
