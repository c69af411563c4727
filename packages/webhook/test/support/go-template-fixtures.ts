// Loads the Go 1.19 answers of test/fixtures/go-template/ (see scripts/go-template-oracle/README.md).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GoTemplateError, runGoTemplate } from "../../src/hooks/go-template/template.js";

/** A template and what Go 1.19 answered: its output, or its error. */
export interface TemplateAnswer {
  readonly template: string;
  readonly out?: string;
  readonly err?: string;
}

/** Reads a fixture file of test/fixtures/go-template. */
export function goTemplateFixture<T>(name: string): T {
  const url = new URL(`../../../test/fixtures/go-template/${name}`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), "utf8")) as T;
}

const ENV: Readonly<Record<string, string>> = { A: "x", ENV: "prod" };

/** Ours, as an answer: the template run as the recordings ran it (getenv over A=x ENV=prod). */
export function answer(template: string): TemplateAnswer {
  try {
    return { template, out: runGoTemplate("hooks", template, { getenv: (k) => ENV[k] ?? "" }) };
  } catch (error) {
    if (!(error instanceof GoTemplateError)) throw error;
    return { template, err: error.message };
  }
}
