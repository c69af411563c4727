import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { InputError } from "./errors.js";
import { rootedPath } from "./rooted-path.js";

/** cloud-init's default run directory (cloudinit/helpers.py Paths: `run_dir`). */
export const DEFAULT_RUN_DIR = "/run/cloud-init";
/** Hard-coded marker file, not under run_dir (cloudinit/cmd/status.py CLOUDINIT_DISABLED_FILE). */
export const DISABLED_MARKER = "/etc/cloud/cloud-init.disabled";

/** What the status file looked like on disk. */
export type StatusFileRead =
  | { kind: "missing" }
  | { kind: "text"; text: string }
  | { kind: "unreadable"; message: string };

/** Everything `cloud-init status` reads from the file system and environment, read once. */
export interface BootState {
  /** `/run/systemd/system` is a directory (cloudinit/distros uses_systemd). */
  isSystemd: boolean;
  /** The kernel command line (env DEBUG_PROC_CMDLINE, else `/proc/cmdline`), "" when unreadable. */
  cmdline: string;
  /** env KERNEL_CMDLINE, "" when unset. */
  kernelCmdlineEnv: string;
  markerFile: boolean;
  /** run_dir as the inspected system names it (for messages). */
  runDir: string;
  generatorDisabled: boolean;
  generatorEnabled: boolean;
  statusFile: StatusFileRead;
  resultExists: boolean;
}

/** Side effects of reading state: where the inspected system's root is, its environment, and YAML parsing. */
export interface StateDeps {
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Reads `system_info.paths.run_dir` from the cloud.cfg texts, in merge order; undefined when unset. */
  runDirFromConfig(texts: readonly { file: string; text: string }[]): Promise<string | undefined>;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** cloud.cfg then cloud.cfg.d/*.cfg in name order: the order cloud-init merges them in (later wins). */
function configTexts(root: string): { file: string; text: string }[] {
  const texts: { file: string; text: string }[] = [];
  const main = readText(rootedPath(root, "/etc/cloud/cloud.cfg"));
  if (main !== undefined) texts.push({ file: "/etc/cloud/cloud.cfg", text: main });
  let names: string[] = [];
  try {
    names = readdirSync(rootedPath(root, "/etc/cloud/cloud.cfg.d")).filter((n) => n.endsWith(".cfg"));
  } catch {
    names = [];
  }
  for (const name of names.sort()) {
    const text = readText(rootedPath(root, `/etc/cloud/cloud.cfg.d/${name}`));
    if (text !== undefined) texts.push({ file: `/etc/cloud/cloud.cfg.d/${name}`, text });
  }
  return texts;
}

function readStatusFile(file: string): StatusFileRead {
  try {
    return { kind: "text", text: readFileSync(file, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    return { kind: "unreadable", message: code ?? String(error) };
  }
}

/** Reads the inspected system's boot state under `deps.root`; never writes anything. */
export async function readBootState(deps: StateDeps): Promise<BootState> {
  const { root } = deps;
  // A mistyped --root would otherwise read as an empty sysvinit system that never started cloud-init.
  if (!isDirectory(root)) {
    throw new InputError(
      `Cannot read the state under "${root}": not a directory (check --root or BOOTSTATUS_ROOT)`,
    );
  }
  const at = (p: string): string => rootedPath(root, p);
  const texts = configTexts(root);
  // Only parse YAML when some file mentions run_dir: keeps the common path free of the YAML parser.
  const mentionsRunDir = texts.some((t) => t.text.includes("run_dir"));
  const configured = mentionsRunDir ? await deps.runDirFromConfig(texts) : undefined;
  const runDir = configured ?? DEFAULT_RUN_DIR;
  // cloudinit/util.py get_cmdline: env DEBUG_PROC_CMDLINE replaces the kernel command line when set.
  const cmdline = deps.env.DEBUG_PROC_CMDLINE ?? readText(at("/proc/cmdline")) ?? "";
  return {
    isSystemd: isDirectory(at("/run/systemd/system")),
    cmdline,
    kernelCmdlineEnv: deps.env.KERNEL_CMDLINE ?? "",
    markerFile: existsSync(at(DISABLED_MARKER)),
    runDir,
    generatorDisabled: existsSync(at(`${runDir}/disabled`)),
    generatorEnabled: existsSync(at(`${runDir}/enabled`)),
    statusFile: readStatusFile(at(`${runDir}/status.json`)),
    resultExists: existsSync(at(`${runDir}/result.json`)),
  };
}
