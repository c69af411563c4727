// bcrypt hashes made by Debian's python3-bcrypt (pyca/bcrypt over OpenBSD's C code), so the hashes a web config names
// come from neither gateway under test; passwords are bytes (not UTF-8 ones too).
import { spawn } from "node:child_process";

/** Where Debian's python3-bcrypt is (package.json testPeers). */
export const PYTHON_BCRYPT = "/usr/lib/python3/dist-packages/bcrypt/__init__.py";

const SCRIPT = `
import base64, bcrypt, json, sys
out = []
for job in json.load(sys.stdin):
    h = bcrypt.hashpw(base64.b64decode(job["password"]), bcrypt.gensalt(4, prefix=job["prefix"].encode())).decode()
    out.append(h)
json.dump(out, sys.stdout)
`;

/** One hash per password, cost 4, in the form asked (`$2y$` is `$2b$`'s algorithm written so, as htpasswd writes it). */
export function bcryptHashes(
  jobs: readonly { password: Buffer; prefix: "2a" | "2b" | "2y" }[],
): Promise<string[]> {
  const input = JSON.stringify(
    jobs.map((j) => ({
      password: j.password.toString("base64"),
      prefix: j.prefix === "2y" ? "2b" : j.prefix,
    })),
  );
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/python3", ["-c", SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(
          new Error(
            `python3 bcrypt exited ${code}: ${err} (install Debian's python3-bcrypt, as .ci/run does)`,
          ),
        );
        return;
      }
      const hashes = JSON.parse(out) as string[];
      resolve(hashes.map((h, i) => (jobs[i]?.prefix === "2y" ? h.replace(/^\$2b\$/, "$2y$") : h)));
    });
    child.stdin.end(input);
  });
}
