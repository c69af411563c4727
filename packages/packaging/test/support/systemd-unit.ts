import { readFileSync } from "node:fs";

/** A unit file's settings: section → key → every value given (systemd allows repeats), in order. */
export type Unit = Map<string, Map<string, string[]>>;

/** Reads a systemd unit file (systemd.syntax: [Section] headers, Key=Value lines, # and ; comments). */
export function readUnit(file: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = new Map();
      unit.set(header[1] ?? "", section);
      continue;
    }
    const eq = line.indexOf("=");
    if (section === undefined || eq < 0) throw new Error(`${file}: cannot read line "${raw}"`);
    const key = line.slice(0, eq).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return unit;
}

/** The one value of a setting, failing when it is missing or given more than once. */
export function setting(unit: Unit, section: string, key: string): string {
  const values = unit.get(section)?.get(key) ?? [];
  if (values.length !== 1) throw new Error(`expected one ${key}= in [${section}], found ${values.length}`);
  return values[0] ?? "";
}
