import { goPathError } from "@local/go-compat/os-error";
import { PidfileError } from "./errors.js";

/** The file effects a pid file needs. */
export interface PidfileDeps {
  /** A file's text, or undefined when it cannot be read. */
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly exists: (path: string) => Promise<boolean>;
  /** Writes a file (mode 0600), creating missing parent directories (0755). */
  readonly writeFile: (path: string, data: string) => Promise<void>;
}

/**
 * Upstream's `pidfile.New` (internal/pidfile/pidfile.go): a pid file that names a live process (`/proc/<pid>`
 * exists) is an error; otherwise the file is (re)written with the pid, no newline. `beforeWrite` runs between the
 * check and the write (the caller starts its signal watcher there, so a SIGTERM as the file appears removes it).
 *
 * @throws {PidfileError} with upstream's text
 */
export async function createPidfile(
  path: string,
  options: {
    readonly pid: number;
    readonly deps: PidfileDeps;
    readonly beforeWrite?: (write: Promise<void>) => void;
  },
): Promise<void> {
  const previous = (await options.deps.readFile(path))?.trim() ?? "";
  if (/^[+-]?\d+$/.test(previous) && (await options.deps.exists(`/proc/${Number(previous)}`))) {
    throw new PidfileError(`pid file found, ensure webhook is not running or delete ${path}`);
  }
  const write = options.deps.writeFile(path, String(options.pid));
  options.beforeWrite?.(write);
  try {
    await write;
  } catch (error) {
    throw new PidfileError(goPathError(error as NodeJS.ErrnoException), { cause: error });
  }
}
