import { parse } from "yaml";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Finds `system_info.paths.run_dir` in cloud.cfg and cloud.cfg.d/*.cfg (cloudinit/cmd/devel read_cfg_paths);
 * later files win, as cloud-init's merge does for scalars. A file that is not valid YAML is skipped, as
 * cloud-init logs and skips it (cloudinit/util.py read_conf_d).
 */
export function runDirFromConfig(texts: readonly { file: string; text: string }[]): string | undefined {
  let runDir: string | undefined;
  for (const { text } of texts) {
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      continue;
    }
    if (!isRecord(doc)) continue;
    const systemInfo = doc.system_info;
    if (!isRecord(systemInfo)) continue;
    const paths = systemInfo.paths;
    if (!isRecord(paths)) continue;
    if (typeof paths.run_dir === "string" && paths.run_dir !== "") runDir = paths.run_dir;
  }
  return runDir;
}
