import { rootCertificates } from "node:tls";
import { readStateFile } from "./read-state-file.js";

// Where distributions keep the system's CA bundle (Debian/Ubuntu, Fedora/RHEL, openSUSE, Alpine); the first found.
const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

function pem(file: string): string | undefined {
  const read = readStateFile(file);
  return read.kind === "ok" ? read.bytes.toString("utf8") : undefined;
}

/**
 * The CAs a report's TLS connection trusts: Node's bundled roots, the system's store (SSL_CERT_FILE, else the
 * distribution's bundle), and NODE_EXTRA_CA_CERTS. Given as `ca`, which replaces Node's default list, so the
 * extra certificates Node would have added are added here again.
 */
export function trustedCas(env: Readonly<Record<string, string | undefined>>): string[] {
  const cas = [...rootCertificates];
  const systemFiles = env.SSL_CERT_FILE ? [env.SSL_CERT_FILE] : SYSTEM_BUNDLES;
  for (const file of systemFiles) {
    const text = pem(file);
    if (text !== undefined) {
      cas.push(text);
      break;
    }
  }
  const extra = env.NODE_EXTRA_CA_CERTS ? pem(env.NODE_EXTRA_CA_CERTS) : undefined;
  if (extra !== undefined) cas.push(extra);
  return cas;
}
