// Debian's nginx as the reverse proxy in front of webhook in the peer tests (`npm run test:peers`): unprivileged, in
// the foreground, every file it writes under the test's own directory.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Where Debian's `nginx` package installs it (declared under `testPeers`). */
export const NGINX = "/usr/sbin/nginx";

/**
 * Writes `<dir>/nginx.conf` for one server on 127.0.0.1:`port` holding `locations` (nginx `location` blocks) and
 * starts nginx on it. The caller waits until it answers, and stops it with {@link stopNginx}.
 */
export async function startNginx(
  dir: string,
  options: { port: number; locations: string },
): Promise<ChildProcess> {
  await writeFile(
    join(dir, "nginx.conf"),
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${options.port};
${options.locations}
  }
}
`,
  );
  return spawn(NGINX, ["-e", join(dir, "error.log"), "-p", dir, "-c", join(dir, "nginx.conf")], {
    stdio: "ignore",
  });
}

/** Stops nginx if it still runs: SIGTERM, then SIGKILL after 5 s. */
export async function stopNginx(nginx: ChildProcess | undefined): Promise<void> {
  if (nginx === undefined || nginx.exitCode !== null) return;
  const exited = new Promise((resolve) => nginx.once("exit", resolve));
  nginx.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (nginx.exitCode === null) nginx.kill("SIGKILL");
}
