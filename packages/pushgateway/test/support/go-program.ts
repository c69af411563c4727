import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * Builds a Go `main` package from `source` against Debian's Go sources (client_golang and its dependencies under
 * /usr/share/gocode), in GOPATH mode: no module download, no network. The build cache stays the user's default, so
 * later runs are quick. Returns the binary and its directory (the caller removes it).
 */
export async function buildGoProgram(
  source: string,
  options: { name: string },
): Promise<{ bin: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), `pg-go-${options.name}-`));
  await writeFile(join(dir, "main.go"), source);
  const bin = join(dir, options.name);
  await promisify(execFile)("go", ["build", "-o", bin, "main.go"], {
    cwd: dir,
    env: { ...process.env, GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOFLAGS: "", GOPROXY: "off" },
    timeout: 280_000,
  });
  return { bin, dir };
}
