import { DISABLED_MARKER } from "./cloud-init-paths.js";
import type { BootState } from "./state-files.js";
import type { QueryOptions, RunSystemctl } from "./systemd.js";
import { querySystemctl } from "./systemd.js";

/** The eight boot status codes, in cloud-init 24.2+ spelling (cloudinit/cmd/status.py EnabledStatus). */
export const BOOT_STATUS_CODES = [
  "disabled-by-generator",
  "disabled-by-kernel-command-line",
  "disabled-by-marker-file",
  "disabled-by-environment-variable",
  "enabled-by-generator",
  "enabled-by-kernel-command-line",
  "enabled-by-sysvinit",
  "unknown",
] as const;
export type BootStatusCode = (typeof BOOT_STATUS_CODES)[number];

/** Codes whose running status is `disabled` (status.py DISABLED_BOOT_CODES). */
export function isDisabledCode(code: BootStatusCode): boolean {
  return code.startsWith("disabled-");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: U+001C..U+001F are whitespace to Python's str.split().
const PYTHON_WHITESPACE = /[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** A boot status code and the reason cloud-init gives for it. */
export interface BootCode {
  code: BootStatusCode;
  reason: string;
}

/** Decides the boot status code; the first matching rule wins (status.py get_bootstatus). */
export async function bootCode(
  state: BootState,
  options: { systemctl: RunSystemctl; query: QueryOptions },
): Promise<BootCode> {
  // Whole tokens on the kernel command line, substrings elsewhere, as upstream compares. Python's str.split()
  // splits on str.isspace() characters, which differ from JavaScript's \s (U+001C..U+001F, U+0085 vs U+FEFF).
  const tokens = state.cmdline.split(PYTHON_WHITESPACE);
  if (!state.isSystemd) return { code: "enabled-by-sysvinit", reason: "Cloud-init enabled on sysvinit" };
  if (tokens.includes("cloud-init=enabled")) {
    return {
      code: "enabled-by-kernel-command-line",
      reason: "Cloud-init enabled by kernel command line cloud-init=enabled",
    };
  }
  if (state.markerFile)
    return { code: "disabled-by-marker-file", reason: `Cloud-init disabled by ${DISABLED_MARKER}` };
  if (tokens.includes("cloud-init=disabled")) {
    return {
      code: "disabled-by-kernel-command-line",
      reason: "Cloud-init disabled by kernel parameter cloud-init=disabled",
    };
  }
  let disabledByEnv = state.kernelCmdlineEnv.includes("cloud-init=disabled");
  if (!disabledByEnv) {
    const env = await querySystemctl(options.systemctl, ["show-environment"], options.query);
    disabledByEnv = env.ok && env.stdout.includes("cloud-init=disabled");
  }
  if (disabledByEnv) {
    return {
      code: "disabled-by-environment-variable",
      reason: "Cloud-init disabled by environment variable KERNEL_CMDLINE=cloud-init=disabled",
    };
  }
  if (state.generatorDisabled) {
    return { code: "disabled-by-generator", reason: "Cloud-init disabled by cloud-init-generator" };
  }
  if (state.generatorEnabled) {
    return { code: "enabled-by-generator", reason: "Cloud-init enabled by systemd cloud-init-generator" };
  }
  return { code: "unknown", reason: "Systemd generator may not have run yet." };
}
