// Go's `template.New(name).Funcs(funcs).Parse(text)` then `Execute(w, nil)`, as upstream's hooks loader runs it
// (internal/hook/hook.go ParseHooks): the text is parsed and executed as bytes, then read back as UTF-8.
import { BUILTINS, stringFunc, type TemplateFunc } from "./builtins.js";
import { executeTemplate, TemplateExecError } from "./exec.js";
import { fromBytes, toBytes } from "./go-text.js";
import { parseTemplate, TemplateParseError } from "./parse.js";

/** A template that failed to parse or execute; the message is Go's. */
export class GoTemplateError extends Error {}

/**
 * Runs a template given as bytes (a byte string, one char per byte) and returns its output as bytes, as Go's
 * `Execute` writes them: a template may write bytes that are not UTF-8 (`{{ slice "é" 0 1 }}`).
 *
 * @throws {GoTemplateError} as {@link runGoTemplate}
 */
export function runGoTemplateBytes(
  name: string,
  bytes: string,
  functions: Readonly<Record<string, (arg: string) => string>>,
): string {
  const funcs = new Map<string, TemplateFunc>(BUILTINS);
  for (const [fname, fn] of Object.entries(functions))
    funcs.set(
      fname,
      stringFunc((arg) => toBytes(fn(fromBytes(arg)))),
    );
  try {
    const trees = parseTemplate(toBytes(name), bytes, new Set(funcs.keys()));
    return executeTemplate(trees, { name: toBytes(name), text: bytes, funcs });
  } catch (error) {
    if (error instanceof TemplateParseError || error instanceof TemplateExecError)
      throw new GoTemplateError(fromBytes(error.message), { cause: error });
    // Go's goroutine stack grows to 1 GB; Node's ends after a few thousand nested parentheses or blocks.
    if (error instanceof Error && error.message.includes("Maximum call stack size exceeded"))
      throw new GoTemplateError(
        `template: ${name}: nested too deeply for this server (parentheses, if/with/range blocks or template calls some thousands deep); flatten the template`,
        { cause: error },
      );
    throw error;
  }
}

/**
 * Runs a template with nil data and the given `func(string) string` functions besides Go's builtins.
 *
 * @throws {GoTemplateError} `template: hooks:3: unexpected EOF`, `template: hooks:1:3: executing "hooks" at <…>: …`
 */
export function runGoTemplate(
  name: string,
  text: string,
  functions: Readonly<Record<string, (arg: string) => string>>,
): string {
  return fromBytes(runGoTemplateBytes(name, toBytes(text), functions));
}
