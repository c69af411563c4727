/**
 * Whether V8's linear-time regular expression engine is on (`--enable-experimental-regexp-engine`, set by
 * bin/pushgateway.js before anything runs): probed once.
 */
let linear: boolean | undefined;

function linearEngine(): boolean {
  if (linear === undefined) {
    try {
      // The flag as a value: a literal with it would be a syntax error where the engine is off.
      const flags = "l";
      new RegExp("", flags);
      linear = true;
    } catch {
      linear = false;
    }
  }
  return linear;
}

/**
 * A regular expression from a request (`match[]`, the status page's filter), anchored at both ends and with `.`
 * matching a newline, as Prometheus anchors its matchers (model/labels/regexp.go). Prometheus runs RE2, whose time is
 * linear in the input; a backtracking engine is not, so one request such as `{job=~"(a+)+b"}` could hold the event
 * loop for minutes. Compiled by V8's linear engine when the launcher turned it on, which, like RE2, refuses
 * backreferences and lookaround ("Cannot be executed in linear time"); without the engine (unit tests that import
 * the module directly) the usual one. No `u` flag: the linear engine does not take it, so `.` is one UTF-16 unit.
 *
 * @throws {SyntaxError} when the expression does not compile, with V8's message
 */
export function anchoredRegExp(source: string): RegExp {
  return new RegExp(`^(?:${source})$`, linearEngine() ? "sl" : "s");
}
