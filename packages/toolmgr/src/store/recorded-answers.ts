import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { readBoundedTextSync } from "../bounded-read.js";
import type { Platform } from "../platform.js";
import type { StoreLayout } from "./layout.js";
import { LOCK_LINK_NAME, SHIM_FRAGMENT_NAME, TOML_LINK_NAME } from "./layout.js";

// The shim's hot path for Node (issue: `exec`, `which`, `status` and `sync` within 1.25x of `node -e 0`): the test
// the shim makes with `-ef`/`-ot` (shim-record.ts), made with five `stat`s, and the recorded answers read back, so
// a command on a project unchanged since `sync`/`exec` last found it current parses neither toolmgr.toml nor the
// lock and loads neither the TOML parser nor node:crypto. Anything else takes the full check, as the shim does.

/** One pinned executable as the record holds it (`pin` lines of the fragment). */
export interface RecordedPin {
  readonly command: string;
  readonly tool: string;
  /** `<version>-<digest12>`, the install's directory name. */
  readonly install: string;
  readonly bin: string;
}

/** One pinned tool as the record holds it (`#t` lines). */
export interface RecordedTool {
  readonly name: string;
  readonly constraint: string;
  readonly version: string;
  readonly pins: readonly RecordedPin[];
}

/**
 * The recorded answers for `projectFile` and the lock beside it, when both are the files (inodes) linked in the
 * record and neither was modified since the answers were made; undefined otherwise.
 */
export async function recordedTools(
  layout: StoreLayout,
  options: { readonly projectFile: string; readonly platform: Platform },
): Promise<RecordedTool[] | undefined> {
  const record = join(layout.projectsDir, dirname(options.projectFile));
  const lockPath = join(dirname(options.projectFile), "toolmgr.lock");
  // Synchronous: five stats and one small read cost less than their promises (find-project-file.ts).
  const s = (path: string) => {
    try {
      return statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  };
  const fragmentPath = join(record, SHIM_FRAGMENT_NAME);
  const [toml, lock, tomlLink, lockLink, fragment] = [
    s(options.projectFile),
    s(lockPath),
    s(join(record, TOML_LINK_NAME)),
    s(join(record, LOCK_LINK_NAME)),
    s(fragmentPath),
  ];
  if (!toml || !lock || !tomlLink || !lockLink || !fragment) return undefined;
  if (toml.ino !== tomlLink.ino || toml.dev !== tomlLink.dev) return undefined;
  if (lock.ino !== lockLink.ino || lock.dev !== lockLink.dev) return undefined;
  if (toml.mtimeNs >= fragment.mtimeNs || lock.mtimeNs >= fragment.mtimeNs) return undefined;
  let text: string;
  try {
    text = readBoundedTextSync(fragmentPath, { kind: "state", refuse: (m) => new Error(m) });
  } catch {
    return undefined; // not a regular file, too large, gone: no answers, the full check decides
  }
  return parseFragment(text, options.platform);
}

/** The single-quoted words of a line the record wrote (`'it'\''s'` is `it's`). */
function words(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'/g)].map((m) => (m[1] ?? "").replaceAll("'\\''", "'"));
}

function parseFragment(text: string, platform: Platform): RecordedTool[] | undefined {
  const lines = text.split("\n");
  if (!lines.includes("_tm_fast=1")) return undefined;
  const tools: { name: string; constraint: string; version: string; pins: RecordedPin[] }[] = [];
  let platformSeen = false;
  for (const line of lines) {
    if (line.startsWith('[ "$_tm_platform" = ')) {
      if (words(line)[0] !== platform) return undefined;
      platformSeen = true;
    } else if (line.startsWith("#t ")) {
      const [name = "", constraint = "", version = ""] = words(line);
      tools.push({ name, constraint, version, pins: [] });
    } else if (line.startsWith("pin ")) {
      const [command = "", tool = "", install = "", bin = ""] = words(line);
      const last = tools.at(-1);
      if (last === undefined || last.name !== tool) return undefined;
      last.pins.push({ command, tool, install, bin });
    }
  }
  return platformSeen ? tools : undefined;
}
