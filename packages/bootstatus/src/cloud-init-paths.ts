// cloud-init's fixed paths, as the inspected system names them (state-files.ts maps them under --root).

/** cloud-init's default run directory (cloudinit/settings.py DEFAULT_RUN_DIR), moved by `system_info.paths.run_dir`. */
export const DEFAULT_RUN_DIR = "/run/cloud-init";
/** cloud-init's default state directory (cloudinit/settings.py CFG_BUILTIN `paths.cloud_dir`). */
export const DEFAULT_CLOUD_DIR = "/var/lib/cloud";
/** The main config file (cloudinit/settings.py CLOUD_CONFIG); its conf.d directory is `${CLOUD_CFG}.d`. */
export const CLOUD_CFG = "/etc/cloud/cloud.cfg";
/** Hard-coded marker file, not under run_dir (cloudinit/cmd/status.py CLOUDINIT_DISABLED_FILE). */
export const DISABLED_MARKER = "/etc/cloud/cloud-init.disabled";
