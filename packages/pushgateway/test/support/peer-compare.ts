// Sending the same request to Debian's 1.5.1 and to ours and comparing what each answers and then exposes: shared by
// the side-by-side suites (peer-parity, input-validation).
import type { ChildProcess } from "node:child_process";
import { request } from "node:http";

/** One request of a scenario. */
export interface Step {
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

/** A step on one line, for a failure's message (a binary body as base64). */
export const showStep = (step: Step): string =>
  `${step.method} ${step.path} ${JSON.stringify(step.headers ?? {})} ${
    step.body === undefined
      ? ""
      : Buffer.isBuffer(step.body)
        ? step.body.toString("base64")
        : JSON.stringify(step.body)
  }`;

export interface Side {
  child: ChildProcess;
  base: string;
}

export interface Answer {
  status: number;
  body: string;
  contentType: string | null;
  location: string | null;
  allow: string | null;
}

/** One request on a fresh connection (1.5.1 can stall a kept-alive connection after a 400 without reading the body). */
export function send(side: Side, step: Step): Promise<Answer> {
  const url = new URL(`${side.base}${step.path}`);
  const body = step.body === undefined ? undefined : Buffer.from(step.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: step.path,
        method: step.method,
        agent: false,
        headers: {
          ...(body === undefined ? {} : { "Content-Length": String(body.length) }),
          ...step.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            contentType: res.headers["content-type"] ?? null,
            location: res.headers.location ?? null,
            allow: (res.headers.allow as string | undefined) ?? null,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Error texts that embed a series print it as protobuf text, which 1.5.1 writes as `label:<name:"a" value:"b" >` and
 * current upstream (google.golang.org/protobuf, deliberately unstable spacing) as `label:{name:"a" value:"b"}`; the
 * type named in `is not a X` depends on Go map order, as does which family of a suffix collision is named. All are masked. The errors of a MultiError come in the order
 * client_golang's concurrent gather met them, which changes from run to run: they are sorted.
 */
export function normalizeBody(body: string): string {
  return (
    body
      .replace(
        /collected metric ("[^"]*") \{.*\} (is not a|was collected before|has a label|has two or more|must not have)/g,
        "collected metric $1 {…} $2",
      )
      .replace(/is not a [A-Z]+/g, "is not a …")
      // A suffix collision names whichever of the two families Go's map order met second.
      .replace(
        /collected metric named ("[^"]*") collides with previously collected (?:summary|histogram) named ("[^"]*")/g,
        "collision of $2 and $1",
      )
      .replace(
        /collected (?:histogram or summary|histogram) named ("[^"]*") collides with previously collected metric named ("[^"]*")/g,
        "collision of $1 and $2",
      )
      .replace(/(error\(s\) occurred:)((?:\n\* [^\n]*)+)/g, (_, head: string, items: string) =>
        [head, ...items.split("\n").slice(1).sort()].join("\n"),
      )
  );
}

export const BARRIER = "/metrics/job/zz_barrier";
const OWN = /^(go|process|pushgateway)_/;

/**
 * The exposition as compared: push times masked (0 stays 0), the barrier group dropped, and in the families of the
 * gateway's own metrics (go_*, process_*, pushgateway_*) only pushed series (they carry `job`) kept, since the
 * runtimes differ; the own families themselves are compared in their own test.
 */
export function normalizeExposition(exposition: string, mask: readonly RegExp[] = []): string {
  const blocks: string[][] = [];
  let current: string[] = [];
  let name = "";
  for (const line of exposition.split("\n")) {
    if (line === "") continue;
    const m = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (m && m[1] !== name) {
      if (current.length > 0) blocks.push(current);
      current = [];
      name = m[1] ?? "";
    }
    current.push(line);
  }
  if (current.length > 0) blocks.push(current);
  const out: string[] = [];
  for (const block of blocks) {
    const fam = /^# (?:HELP|TYPE) (\S+)/.exec(block[0] ?? "")?.[1] ?? "";
    let lines = block.filter((l) => !l.includes('job="zz_barrier"'));
    if (OWN.test(fam)) {
      if (!lines.some((l) => !l.startsWith("#") && l.includes('job="'))) continue;
      lines = lines.filter((l) => l.startsWith("# TYPE") || l.includes('job="'));
    }
    if (!lines.some((l) => !l.startsWith("#"))) continue;
    out.push(...lines);
  }
  let joined = out
    .join("\n")
    .replace(/^(push_time_seconds\{[^}]*\}) (?!0$).*$/gm, "$1 <time>")
    .replace(/^(push_failure_time_seconds\{[^}]*\}) (?!0$).*$/gm, "$1 <time>");
  for (const re of mask)
    joined = joined.replace(new RegExp(re.source, `${re.flags.replace("g", "")}g`), "<masked>");
  return joined;
}

/** The API's JSON with groups in a fixed order (upstream's follow Go map order), the barrier dropped, times masked. */
export function normalizeApi(body: string): string {
  const doc = JSON.parse(body) as { status: string; data: Record<string, unknown>[] };
  const groups = doc.data
    .filter((g) => (g.labels as Record<string, string>).job !== "zz_barrier")
    .map((g) => JSON.stringify(g))
    .sort();
  return (
    `${doc.status} ${groups.join("\n")}`
      .replace(/"time_stamp":"[^"]*"/g, '"time_stamp":"<time>"')
      // Only the push-time families' own value: a pattern that could run on past a value of "0" masked the next
      // family's value instead (seed 2 of push-fuzz, a pushed -0 after a failed push's 0).
      .replace(
        /("push(?:_failure)?_time_seconds":\{[^[]*"metrics":\[\{"labels":\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\},"value":)"(?!0")[^"]*"/g,
        '$1"<time>"',
      )
  );
}

/** An exposition with each family's sample lines sorted (ties in client_golang's series order then compare equal). */
export function sortedInBlocks(exposition: string): string {
  const out: string[] = [];
  let block: string[] = [];
  for (const line of [...exposition.split("\n"), "# end"]) {
    if (line.startsWith("#")) {
      out.push(...block.sort());
      block = [];
      out.push(line);
    } else block.push(line);
  }
  return out.join("\n");
}
