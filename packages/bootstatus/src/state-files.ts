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
  /** The kernel command line (env DEBUG_PROC_CMDLINE, else `/proc/1/cmdline` in a container, else `/proc/cmdline`). */
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

// cloud-init decodes strictly (util.decode_binary) and keeps a BOM, which json.loads then rejects.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * cloudinit/util.py is_container, as far as files under the root can tell: its own checks (PID 1's environment,
 * OpenVZ, Linux-VServer) plus the files `systemd-detect-virt --container` (its first check) reads.
 */
function isContainer(at: (p: string) => string): boolean {
  const markers = ["/run/systemd/container", "/.dockerenv", "/run/.containerenv"];
  if (markers.some((m) => existsSync(at(m)))) return true;
  const environ = readText(at("/proc/1/environ")) ?? "";
  const names = environ.split("\0").map((entry) => entry.split("=")[0]);
  if (names.includes("container") || names.includes("LIBVIRT_LXC_UUID")) return true;
  if (isDirectory(at("/proc/vz")) && !isDirectory(at("/proc/bc"))) return true;
  // Upstream compares the text after "VxID:" of the stripped line with "0" as it is (a tab included).
  const status = (readText(at("/proc/self/status")) ?? "").split("\n");
  return status.some((line) => line.startsWith("VxID:") && line.trim().slice("VxID:".length) !== "0");
}

/**
 * cloudinit/util.py _get_cmdline: in a container PID 1's command line (NULs to spaces, last byte dropped, so an
 * LXD container does not see the host's `cloud-init=disabled`), else /proc/cmdline stripped; "" when unreadable.
 */
function kernelCmdline(at: (p: string) => string): string {
  if (isContainer(at)) return (readText(at("/proc/1/cmdline")) ?? "").replaceAll("\0", " ").slice(0, -1);
  return (readText(at("/proc/cmdline")) ?? "").trim();
}

function readStatusFile(file: string): StatusFileRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    return { kind: "unreadable", message: code ?? String(error) };
  }
  try {
    return { kind: "text", text: UTF8.decode(bytes) };
  } catch {
    return { kind: "unreadable", message: "not valid UTF-8" };
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
  const cmdline = deps.env.DEBUG_PROC_CMDLINE ?? kernelCmdline(at);
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
