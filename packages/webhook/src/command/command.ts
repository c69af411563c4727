import { randomInt } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { goErrnoText, goPathError } from "@local/go-compat/os-error";
import { goBase64Decode } from "../go/base64.js";
import { goList, goQuoteList } from "../go/log-format.js";
import type { Argument, Hook } from "../hooks/hook.js";
import { argumentError, getArgument, type RequestData } from "../request/request-values.js";
import type { CommandResult, RunRequest } from "./node-spawn.js";

export type { CommandResult } from "./node-spawn.js";

/** What running a command needs from outside. */
export interface CommandDeps {
  /** Starts the program and collects its output: here, or in a spawn helper process (helper-pool.ts). */
  readonly run: (request: RunRequest) => Promise<CommandResult>;
  /** The server's environment; the command inherits it plus the hook's variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The server's working directory. */
  readonly cwd: string;
  readonly tmpdir: string;
  readonly log: (line: string) => void;
  /** Whether `log` writes anywhere; when false, the lines with the command's arguments and output are not built. */
  readonly verbose?: boolean;
}

const serverEnvs = new WeakMap<object, Record<string, string>>();

/**
 * The server's environment without unset variables, made once: the same object for every run without hook variables,
 * so the spawner can keep its `KEY=value` list too (posix-spawn.ts).
 */
function serverEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let defined = serverEnvs.get(env);
  if (defined === undefined) {
    defined = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v;
    serverEnvs.set(env, defined);
  }
  return defined;
}

/**
 * Runs the hook's command with no shell: argv is `[execute-command, ...pass-arguments-to-command]`, the environment
 * is the server's plus `pass-environment-to-command` and `pass-file-to-command` variables, stdin is empty, and stdout
 * and stderr are merged in arrival order (upstream `CombinedOutput`). Temporary files are removed afterwards. Logs
 * the lines upstream's `handleHook` logs, in its order.
 */
export async function runCommand(
  hook: Hook,
  options: {
    data: RequestData;
    deps: CommandDeps;
    rid: string;
    /** Beyond upstream: where the output goes as it is read, and how the run is stopped (streamed output, jobs). */
    control?: Pick<RunRequest, "onOutput" | "abort" | "graceMs">;
  },
): Promise<CommandResult> {
  const { data, deps, rid } = options;
  const workdir = hook.commandWorkingDirectory;
  const path = await lookPath(hook.executeCommand, { workdir, cwd: deps.cwd, env: deps.env });
  if (typeof path !== "string") {
    deps.log(`[${rid}] error in exec: ${path.error}`);
    if (hook.executeCommand.includes(" ")) {
      deps.log(
        `[${rid}] use 'pass-arguments-to-command' to specify args for '${hook.executeCommand.split(" ")[0]}'`,
      );
    }
    return { output: Buffer.alloc(0), error: path.error };
  }
  const args: string[] = [];
  for (const a of hook.passArgumentsToCommand) {
    const value = argumentOrError(a, data);
    // Upstream keeps the argument's position with an empty value and logs why.
    if (value === undefined) deps.log(`[${rid}] error extracting command arguments: ${argumentError(a)}`);
    args.push(value ?? "");
  }
  const hookEnv: string[] = [];
  for (const a of hook.passEnvironmentToCommand) {
    const value = argumentOrError(a, data);
    if (value === undefined)
      deps.log(`[${rid}] error extracting command arguments for environment: ${argumentError(a)}`);
    else hookEnv.push(`${a.envname || `HOOK_${a.name}`}=${value}`);
  }
  const files: string[] = [];
  for (const a of hook.passFileToCommand) {
    const value = argumentOrError(a, data);
    if (value === undefined) {
      deps.log(`[${rid}] error extracting command arguments for file: ${argumentError(a)}`);
      continue;
    }
    const name = a.envname || `HOOK_${a.name.toUpperCase()}`;
    if (a.envname === "") deps.log(`no ENVVAR name specified, falling back to [${name}]`);
    const file = join(workdir || deps.tmpdir, `${name}${randomInt(1e9)}`);
    deps.log(`[${rid}] writing env ${name} file ${file}`);
    let content: Buffer | string = value;
    if (a.base64decode) {
      const decoded = goBase64Decode(value);
      // Upstream logs the error and still writes what decoded before it.
      if (decoded.error !== undefined) deps.log(`error decoding string [${decoded.error}]`);
      content = decoded.bytes;
    }
    try {
      await writeFile(file, content);
    } catch (error) {
      // Upstream logs and goes on without that file (hook.go ExtractCommandArgumentsForFile).
      deps.log(`[${rid}] error creating temp file [${goPathError(error as NodeJS.ErrnoException)}]`);
      continue;
    }
    files.push(file);
    hookEnv.push(`${name}=${file}`);
  }
  let env = serverEnv(deps.env);
  if (hookEnv.length > 0) {
    env = { ...env };
    for (const pair of hookEnv) {
      const eq = pair.indexOf("=");
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  if (deps.verbose !== false)
    deps.log(
      `[${rid}] executing ${hook.executeCommand} (${path}) with arguments ${goQuoteList([hook.executeCommand, ...args])} and environment ${goList(hookEnv)} using ${workdir} as cwd`,
    );
  let result: CommandResult;
  try {
    // Go's os.StartProcess checks the directory first, to name it in the error (os/exec_posix.go); in place, as the
    // executable's lookup (a thread-pool round trip costs more than the call).
    const chdirError = workdir === "" ? undefined : directoryError(workdir);
    result =
      chdirError !== undefined
        ? { output: Buffer.alloc(0), error: chdirError }
        : await deps.run({
            path,
            args,
            env,
            cwd: workdir || deps.cwd,
            argv0: hook.executeCommand,
            timeout: hook.timeout,
            ...options.control,
          });
    // Streamed output went to its reader (a response, a job's file) and is not held for the log.
    if (deps.verbose !== false)
      deps.log(
        options.control?.onOutput === undefined
          ? `[${rid}] command output: ${result.output.toString("utf8")}`
          : `[${rid}] command output streamed: ${result.outputBytes ?? 0} bytes`,
      );
    if (result.error !== undefined) deps.log(`[${rid}] error occurred: ${result.error}`);
  } finally {
    for (const file of files) {
      deps.log(`[${rid}] removing file ${file}`);
      await rm(file, { force: true });
    }
  }
  deps.log(`[${rid}] finished handling ${hook.id}`);
  return result;
}

function argumentOrError(arg: Argument, data: RequestData): string | undefined {
  try {
    return getArgument(arg, data);
  } catch {
    return undefined;
  }
}

/**
 * Finds the executable as upstream does (webhook.go handleHook, exec.LookPath): an absolute command, or any command
 * when there is no working directory, is looked up with `exec.LookPath` (PATH for a bare name, relative to the server's
 * cwd otherwise); otherwise it is taken relative to the working directory.
 */
async function lookPath(
  command: string,
  options: { workdir: string; cwd: string; env: Readonly<Record<string, string | undefined>> },
): Promise<string | { error: string }> {
  const candidate = isAbsolute(command) || options.workdir === "" ? command : join(options.workdir, command);
  if (candidate === "") return { error: 'exec: "": executable file not found in $PATH' };
  if (candidate.includes("/")) {
    const full = isAbsolute(candidate) ? candidate : join(options.cwd, candidate);
    const problem = executableProblem(full, candidate);
    return problem === undefined ? full : { error: `"${candidate}": ${problem}` };
  }
  for (const dir of (options.env.PATH ?? "").split(delimiter)) {
    const full = join(dir || ".", candidate);
    if (isExecutable(full)) return isAbsolute(full) ? full : join(options.cwd, full);
  }
  return { error: `exec: "${candidate}": executable file not found in $PATH` };
}

/** Go's `chdir <dir>: <errno text>` when the working directory cannot be stat'ed, else undefined. */
function directoryError(dir: string): string | undefined {
  try {
    statSync(dir);
    return undefined;
  } catch (error) {
    return goPathError(error as NodeJS.ErrnoException, "chdir");
  }
}

/**
 * Go's `findExecutable`, with the same two system calls made in place: through the thread pool each cost more than
 * the call itself (15 % of the server's time running `/bin/true`, bench/webhook/README.md).
 */
function isExecutable(path: string): boolean {
  return executableProblem(path, path) === undefined;
}

/**
 * Why exec.LookPath refuses a path (Go 1.19's lp_unix.go `findExecutable`, as in Debian's 2.8.0): `stat <shown>:
 * <errno text>` when it cannot be stat'ed, `permission denied` for a directory or a file without execute
 * permission; undefined when it can run.
 */
function executableProblem(path: string, shown: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return "permission denied";
  } catch (error) {
    return `stat ${shown}: ${goErrnoText(error as NodeJS.ErrnoException)}`;
  }
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return "permission denied";
  }
}
