import type { BootStatus } from "./boot-status.js";
import { translateStatus } from "./boot-status.js";

/**
 * cloud-init's tabular output, byte for byte (status.py print_status and TABULAR_LONG_TMPL): `status:` only,
 * or with `long` the extended lines, tab-indented error lists and no last_update line when there is none.
 */
export function formatTabular(status: BootStatus, options: { long: boolean }): string {
  const { status: shown, extended } = translateStatus(status.running, status.condition);
  // cloud-init prints from details_dict, where `**v1` comes last, so a v1 key named like a field overrides it.
  const v1 = status.v1;
  const pick = (key: string, computed: unknown): unknown => (Object.hasOwn(v1, key) ? v1[key] : computed);
  const lines = [`status: ${pyStr(pick("status", shown))}`];
  if (!options.long) return `${lines.join("\n")}\n`;
  const lastUpdate = pick("last_update", status.lastUpdate);
  const errors = pick("errors", status.errors);
  const recoverable = pick(
    "recoverable_errors",
    Object.fromEntries(status.recoverableErrors.map((r) => [r.level, r.messages])),
  );
  lines.push(`extended_status: ${pyStr(pick("extended_status", extended))}`);
  lines.push(`boot_status_code: ${pyStr(pick("boot_status_code", status.bootStatusCode))}`);
  if (truthy(lastUpdate)) lines.push(`last_update: ${pyStr(lastUpdate)}`);
  lines.push(`detail: ${pyStr(pick("detail", status.detail))}`);
  if (Array.isArray(errors) && errors.length > 0)
    lines.push("errors:", ...errors.map((e) => `\t- ${pyStr(e)}`));
  else lines.push("errors: []");
  const levels = recoverable !== null && typeof recoverable === "object" ? Object.entries(recoverable) : [];
  if (levels.length > 0) {
    lines.push("recoverable_errors:");
    for (const [level, messages] of levels) {
      const list = Array.isArray(messages) ? messages.map((m) => pyStr(m).replaceAll("\n", " ")) : [];
      lines.push(`${level}:\n\t- ${list.join("\n\t- ")}`);
    }
  } else {
    lines.push("recoverable_errors: {}");
  }
  return `${lines.join("\n")}\n`;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

/** Python's str() of a JSON value, for the rare v1 keys that shadow computed fields. */
function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}
