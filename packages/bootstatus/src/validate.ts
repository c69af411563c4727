import Ajv2020Module from "ajv/dist/2020.js";
import { loadSchema } from "./schema.js";

/** One schema violation: where (a JSON pointer into the report) and what. */
export interface Violation {
  pointer: string;
  message: string;
}

// ajv ships CommonJS with a default export; under NodeNext the class sits on `.default`.
const Ajv2020 = Ajv2020Module.default;

/** Checks a parsed document against the report v1 schema; an empty list means valid. */
export function validateReport(doc: unknown): Violation[] {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const check = ajv.compile(loadSchema());
  if (check(doc)) return [];
  return (check.errors ?? []).map((e) => {
    let message = e.message ?? "is invalid";
    if (e.keyword === "enum") {
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
    } else if (e.keyword === "additionalProperties") {
      message = `has unknown property ${JSON.stringify((e.params as { additionalProperty?: string }).additionalProperty)}`;
    }
    return { pointer: e.instancePath === "" ? "/" : e.instancePath, message };
  });
}
