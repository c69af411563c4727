import { formatLockfile, type LockedArtifact, type LockedTool, type Lockfile } from "../lockfile.js";

/**
 * The lines `lock` prints, one per tool, in the peer's words (nao1215/block e2e/atago/lock*.yaml): `lock` says what
 * it did (`locked 1.7.4`, `1.7.4 -> 1.7.5`, the version alone, `(no longer in toolmgr.toml)`), `lock --check` what it
 * would do (`missing`, `->`, `(up-to-date)`, or for the same version what changes: `(constraint)`, `(bin, source)`,
 * `(artifact for darwin/arm64 added)`). The exit code of `--check` carries the verdict, so neither prints a summary.
 */
export function lockReport(
  tools: readonly LockedTool[],
  options: {
    readonly existing: Lockfile | undefined;
    readonly check: boolean;
    /** Per tool, what its release cooldown held back or kept (`1.4.0 held back until …`), added to its line. */
    readonly notes?: ReadonlyMap<string, string>;
  },
): string {
  const { existing, check, notes } = options;
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
    else state = `${t.version} (${changesOf(before, t).join(", ")})`;
    const note = notes?.get(t.name);
    if (note !== undefined)
      state = state.endsWith(")") ? `${state.slice(0, -1)}; ${note})` : `${state} (${note})`;
    return `${t.name.padEnd(width)}${state}`;
  });
  for (const gone of existing?.tools ?? []) {
    if (!tools.some((t) => t.name === gone.name))
      lines.push(`${gone.name.padEnd(width)}${gone.version} (no longer in toolmgr.toml)`);
  }
  return lines.map((l) => `${l}\n`).join("");
}

// What rewriting one tool's entry without moving its version would change, named as the peer names it
// (nao1215/block e2e/atago/lock_check.atago.yaml: "(constraint)", "(bin, source)", "(artifact for <platform> added)"):
// a version comparison alone would call such a lock up to date.
function changesOf(before: LockedTool, after: LockedTool): string[] {
  const changes: string[] = [];
  if (before.constraint !== after.constraint) changes.push("constraint");
  if (before.bin.join("\n") !== after.bin.join("\n")) changes.push("bin");
  if (before.stripComponents !== after.stripComponents) changes.push("strip_components");
  if (before.source !== after.source) changes.push("source");
  const key = (a: LockedArtifact) => JSON.stringify([a.url, a.sha256, a.apiUrl ?? ""]);
  const was = new Map(before.artifacts.map((a) => [a.platform, key(a)]));
  const now = new Map(after.artifacts.map((a) => [a.platform, key(a)]));
  for (const [platform, artifact] of now) {
    const old = was.get(platform);
    if (old === undefined) changes.push(`artifact for ${platform} added`);
    else if (old !== artifact) changes.push(`artifact for ${platform} changed`);
  }
  for (const platform of was.keys()) if (!now.has(platform)) changes.push(`artifact for ${platform} removed`);
  return changes.length > 0 ? changes : ["entry would change"];
}
