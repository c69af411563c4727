import { readFileSync } from "node:fs";

// The schema ships in the package (schema/); this file and the bundle both sit two levels below the package root.
const SCHEMA_URL = new URL("../../schema/boot-status-report-v1.json", import.meta.url);

/** The JSON Schema (draft 2020-12) of report v1, as shipped in the package. */
export function schemaText(): string {
  return readFileSync(SCHEMA_URL, "utf8");
}

/** The parsed schema object. */
export function loadSchema(): Record<string, unknown> {
  return JSON.parse(schemaText()) as Record<string, unknown>;
}
