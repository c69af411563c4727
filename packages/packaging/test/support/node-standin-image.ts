import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { runOk } from "./run.js";

/**
 * Builds, from this machine's Node and nothing pulled, an image standing in for `node:20-bookworm-slim` with what
 * the Containerfiles may rely on: node and npm in /usr/local (npm's bin needs /usr/bin/env), /bin/sh, the
 * shared libraries those need, and the `node` user and group (uid/gid 1000) with its home. Imported from a root
 * file system tarball with `podman import`; returns the image name.
 */
export async function buildNodeStandin(options: {
  work: string;
  env: NodeJS.ProcessEnv;
  name: string;
}): Promise<string> {
  const rootfs = join(options.work, "standin-rootfs");
  const node = realpathSync(process.execPath);
  const npm = realpathSync(join(dirname(node), "..", "lib", "node_modules", "npm"));
  const put = (from: string, to: string) => {
    mkdirSync(join(rootfs, dirname(to)), { recursive: true });
    copyFileSync(realpathSync(from), join(rootfs, to));
  };
  put(node, "/usr/local/bin/node");
  cpSync(npm, join(rootfs, "usr/local/lib/node_modules/npm"), { recursive: true, dereference: true });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx"));
  put("/bin/sh", "/bin/sh");
  put("/usr/bin/env", "/usr/bin/env");
  for (const program of [node, "/bin/sh", "/usr/bin/env"]) {
    const { stdout } = await runOk("ldd", [program], { timeoutMs: 10_000 });
    for (const lib of stdout.match(/\/\S+/g) ?? []) put(lib, lib);
  }
  mkdirSync(join(rootfs, "etc"), { recursive: true });
  writeFileSync(
    join(rootfs, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n",
  );
  writeFileSync(join(rootfs, "etc/group"), "root:x:0:\nnode:x:1000:\n");
  for (const dir of ["tmp", "root", "home/node"]) mkdirSync(join(rootfs, dir), { recursive: true });
  chmodSync(join(rootfs, "tmp"), 0o1777);
  chownSync(join(rootfs, "home/node"), 1000, 1000);
  const tarball = join(options.work, "standin-rootfs.tar");
  await runOk("tar", ["-C", rootfs, "-cf", tarball, "."], { timeoutMs: 120_000 });
  await runOk(
    "podman",
    [
      "import",
      "--change",
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--change",
      'CMD ["node"]',
      tarball,
      options.name,
    ],
    { env: options.env, timeoutMs: 180_000 },
  );
  return options.name;
}
