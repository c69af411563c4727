import { formatLockfile, type LockedTool, type Lockfile } from "../lockfile.js";

/**
 * The lines `lock` prints, one per tool, in the peer's words (nao1215/block e2e/atago/lock*.yaml): `lock` says what
 * it did (`locked 1.7.4`, `1.7.4 -> 1.7.5`, the version alone, `(no longer in toolmgr.toml)`), `lock --check` what it
 * would do (`missing`, `->`, `(artifacts would change)`, `(up-to-date)`). The exit code of `--check` carries the
 * verdict, so neither prints a summary here.
 */
export function lockReport(
  tools: readonly LockedTool[],
  options: { readonly existing: Lockfile | undefined; readonly check: boolean },
): string {
  const { existing, check } = options;
  const width =
    Math.max(...tools.map((t) => t.name.length), ...(existing?.tools.map((t) => t.name.length) ?? [0])) + 2;
  const lines = tools.map((t) => {
    const before = existing?.tools.find((p) => p.name === t.name);
    let state: string;
    if (before === undefined) state = `${check ? "missing" : "locked"} ${t.version}`;
    else if (before.version !== t.version) state = `${before.version} -> ${t.version}`;
    else if (!check) state = t.version;
    else if (formatLockfile({ version: 1, tools: [before] }) === formatLockfile({ version: 1, tools: [t] }))
      state = `${t.version} (up-to-date)`;
    else state = `${t.version} (artifacts would change)`;
    return `${t.name.padEnd(width)}${state}`;
  });
  for (const gone of existing?.tools ?? []) {
    if (!tools.some((t) => t.name === gone.name))
      lines.push(`${gone.name.padEnd(width)}${gone.version} (no longer in toolmgr.toml)`);
  }
  return lines.map((l) => `${l}\n`).join("");
}
