import { goMarshal as marshal } from "@local/go-compat/json";
import { isLosslessNumber } from "lossless-json";

// Numbers decoded with `UseNumber` keep their source text (`1.50`, `1e3`), as upstream's json.Number does.
const literal = (value: unknown) => (isLosslessNumber(value) ? value.value : undefined);

/**
 * Serialises a value as Go's `json.Marshal` does for `map[string]interface{}` (go-compat's encoder), with numbers as
 * their literal source text. Upstream renders objects passed to commands and `entire-*` sources this way
 * (webhook.go `handleHook` → `hook.ExtractCommandArguments`).
 */
export function goMarshal(value: unknown): string {
  return marshal(value, { literal });
}

/** Renders a request value as upstream's `fmt.Sprintf("%v")` path does: strings as is, null as `<nil>`, objects as JSON. */
export function renderValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "<nil>";
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  return goMarshal(value);
}
