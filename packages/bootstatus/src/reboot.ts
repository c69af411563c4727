import { existsSync, statSync } from "node:fs";
import { DEFAULT_CLOUD_DIR } from "./cloud-init-paths.js";
import { readStateFile } from "./read-state-file.js";
import { rootedPath } from "./rooted-path.js";

/** The kernel's id of the running boot; a new one after every reboot (random(4)). */
export const BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id";
/** Written by package scripts (update-notifier-common, needrestart, ...) when a reboot is needed; /run is emptied at boot. */
export const REBOOT_REQUIRED = "/var/run/reboot-required";
// cloud-init stores the instance's merged user-data and vendor-data cloud-config here (stages.py _store_*data).
const STORED_CONFIGS = [
  `${DEFAULT_CLOUD_DIR}/instance/cloud-config.txt`,
  `${DEFAULT_CLOUD_DIR}/instance/vendor-cloud-config.txt`,
];
// helpers.py Runners: the semaphore of a per-instance module, `config_` + its name with `-` as `_`.
const POWER_STATE_SEM = `${DEFAULT_CLOUD_DIR}/instance/sem/config_power_state_change`;

/** What the reboot-aware `--wait` asks of the inspected system. */
export interface RebootProbe {
  /** The current boot id, or undefined while it cannot be read (a machine rebooting, no /proc under --root). */
  bootId(): string | undefined;
  /**
   * Whether this boot, now done, asked for a reboot: `/var/run/reboot-required` with `package_reboot_if_required`,
   * or a `power_state` reboot that ran in this boot. `watchedItRun`: this waiter saw the boot unfinished, which
   * stands in for the module's time when the boot's start time cannot be read.
   */
  pending(options: { watchedItRun: boolean }): Promise<boolean>;
}

function text(file: string): string | undefined {
  const read = readStateFile(file);
  return read.kind === "ok" ? read.bytes.toString("utf8") : undefined;
}

/** util.get_cfg_option_bool / util.translate_bool: true, "true", "yes", "on", "1", 1 (case-insensitive). */
function cloudInitBool(value: unknown): boolean {
  if (value === true || value === 1) return true;
  return typeof value === "string" && ["true", "yes", "on", "1", "y"].includes(value.trim().toLowerCase());
}

/** Seconds since the epoch at which this boot started (`btime` of /proc/stat), if it can be read. */
function bootTime(root: string): number | undefined {
  const stat = text(rootedPath(root, "/proc/stat"));
  const match = stat === undefined ? null : /^btime (\d+)$/m.exec(stat);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

async function storedConfig(root: string): Promise<Record<string, unknown>> {
  const merged: Record<string, unknown> = {};
  for (const file of STORED_CONFIGS) {
    const body = text(rootedPath(root, file));
    // Most boots ask for neither: no YAML parser for them.
    if (body === undefined || !/power_state|package_reboot_if_required/.test(body)) continue;
    const { parse } = await import("yaml");
    let doc: unknown;
    try {
      doc = parse(body, { version: "1.1" });
    } catch {
      continue;
    }
    // User data first: cloud-init merges vendor data under it.
    if (doc !== null && typeof doc === "object" && !Array.isArray(doc)) {
      for (const [k, v] of Object.entries(doc)) if (!(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

/** The probe of the system under `root`. */
export function rebootProbe(root: string): RebootProbe {
  return {
    bootId: () => text(rootedPath(root, BOOT_ID_FILE))?.trim() || undefined,
    pending: async ({ watchedItRun }) => {
      const config = await storedConfig(root);
      if (cloudInitBool(config.package_reboot_if_required) && existsSync(rootedPath(root, REBOOT_REQUIRED))) {
        return true;
      }
      const powerState = config.power_state;
      const mode =
        powerState !== null && typeof powerState === "object"
          ? (powerState as { mode?: unknown }).mode
          : undefined;
      if (mode !== "reboot") return false;
      // power_state stays in the config on every later boot; only a run of the module in this boot reboots.
      let ran: number;
      try {
        ran = statSync(rootedPath(root, POWER_STATE_SEM)).mtimeMs / 1000;
      } catch {
        return false;
      }
      const booted = bootTime(root);
      return booted === undefined ? watchedItRun : ran >= booted;
    },
  };
}
