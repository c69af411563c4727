import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { userEnv } from "./run.js";

/**
 * An environment for podman/buildah of the test's own: storage, state and locks under `work` (the vfs driver, which
 * needs no overlay support from the kernel or the container the tests may run in), runc as the runtime, and no
 * default ulimits (podman's defaults fail to apply on these machines). Removing `work` removes every image and
 * container.
 */
export function podmanEnv(work: string): NodeJS.ProcessEnv {
  const dir = join(work, "podman");
  mkdirSync(join(dir, "graph"), { recursive: true });
  mkdirSync(join(dir, "run"), { recursive: true });
  // tmp_dir and file locks of its own too: podman's default shared-memory locks and /run/libpod are per machine,
  // and another podman (another run of these tests) must not share lock numbers with this one's containers.
  mkdirSync(join(dir, "tmp"), { recursive: true });
  writeFileSync(
    join(dir, "containers.conf"),
    `[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\nlock_type = "file"\ntmp_dir = "${join(dir, "tmp")}"\n`,
  );
  writeFileSync(
    join(dir, "storage.conf"),
    `[storage]\ndriver = "vfs"\ngraphroot = "${join(dir, "graph")}"\nrunroot = "${join(dir, "run")}"\n`,
  );
  return userEnv({
    CONTAINERS_CONF: join(dir, "containers.conf"),
    CONTAINERS_STORAGE_CONF: join(dir, "storage.conf"),
  });
}
