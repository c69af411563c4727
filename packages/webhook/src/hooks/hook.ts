/** Where a value comes from (`source`) and its name: upstream's `Argument`. */
export interface Argument {
  readonly source: string;
  readonly name: string;
  readonly envname: string;
  readonly base64decode: boolean;
}

/** A `match` rule. */
export interface MatchRule {
  readonly type: string;
  readonly regex: string;
  readonly secret: string;
  readonly value: string;
  readonly ipRange: string;
  readonly parameter: Argument;
  /** Beyond upstream: `standard-webhooks`/`stripe-signature` timestamps this far from now are refused; unset: 300. */
  readonly toleranceSeconds?: number;
}

/** A trigger rule: exactly one of `and`, `or`, `not`, `match` (the first present, in that order), or empty. */
export type Rule =
  | { readonly and: readonly Rule[] }
  | { readonly or: readonly Rule[] }
  | { readonly not: Rule }
  | { readonly match: MatchRule }
  | { readonly empty: true };

/** A hook definition (docs/Hook-Definition.md), every field upstream has, plus opt-in extensions. */
export interface Hook {
  readonly id: string;
  readonly executeCommand: string;
  readonly commandWorkingDirectory: string;
  readonly responseMessage: string;
  readonly responseHeaders: readonly { readonly name: string; readonly value: string }[];
  readonly successHttpResponseCode: number;
  readonly triggerRuleMismatchHttpResponseCode: number;
  readonly incomingPayloadContentType: string;
  /** Trimmed and upper-cased, as upstream compares them. */
  readonly httpMethods: readonly string[];
  readonly includeCommandOutputInResponse: boolean;
  readonly includeCommandOutputInResponseOnError: boolean;
  readonly passArgumentsToCommand: readonly Argument[];
  readonly passEnvironmentToCommand: readonly Argument[];
  readonly passFileToCommand: readonly Argument[];
  readonly parseParametersAsJson: readonly Argument[];
  readonly triggerRule: Rule | undefined;
  readonly triggerSignatureSoftFailures: boolean;
  /** Beyond upstream: at most this many runs at once; 429 past it. 0 = unlimited (upstream). */
  readonly maximumConcurrentExecutions: number;
  /** Beyond upstream: seconds before the command's process group gets SIGTERM, then SIGKILL. 0 = none (upstream). */
  readonly timeout: number;
  /** Beyond upstream: write the output to the response as it is produced (adnanh/webhook#250, PR #549's name). */
  readonly streamCommandOutput: boolean;
  /** Beyond upstream: runs past `maximumConcurrentExecutions` that wait their turn (adnanh/webhook#148); 0 = none. */
  readonly queue: number;
  /** Beyond upstream (with `-jobs-dir`): a header naming the delivery; one seen in the last 24 h runs nothing. */
  readonly deduplicateBy: string;
  /** Beyond upstream: seconds between SIGTERM and SIGKILL when the command is stopped; 0 = the default, 5. */
  readonly killGraceSeconds: number;
}
