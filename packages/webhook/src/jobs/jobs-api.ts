import type { HookResponse } from "../response/hook-response.js";
import { StreamedBody } from "../response/streamed-body.js";
import { readOutput } from "./job-output.js";
import type { Job, JobStore } from "./job-store.js";

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

/**
 * The jobs API at `/jobs/` (beyond upstream, `-jobs-dir`; ncarlier/webhookd serves its jobs the same way,
 * adnanh/webhook#205 asks for it): `GET /jobs/<id>` the job as JSON, `GET /jobs/<id>/output` its output (followed
 * while it runs), `DELETE /jobs/<id>` stops it. `rest` is the cleaned, decoded path after `/jobs/`. Ids are looked up
 * in memory against their form (32 hex digits) first, so no request path ever reaches the file system: anything
 * else (`..`, `/`, an unknown id) is 404. Knowing the id (128 random bits) is what lets a client read a job.
 */
export function jobsResponse(method: string, rest: string, store: JobStore): HookResponse {
  const slash = rest.indexOf("/");
  const id = slash < 0 ? rest : rest.slice(0, slash);
  const sub = slash < 0 ? undefined : rest.slice(slash + 1);
  const job = store.get(id);
  if (job === undefined || (sub !== undefined && sub !== "output")) {
    return { status: 404, headers: [["Content-Type", TEXT]], body: "Job not found.", unrouted: true };
  }
  if (sub === "output") {
    if (method !== "GET" && method !== "HEAD") return notAllowed("GET, HEAD");
    return {
      status: 200,
      headers: [
        ["Content-Type", TEXT],
        ["X-Content-Type-Options", "nosniff"],
        ["Trailer", "X-Webhook-Exit-Code"],
        ["X-Accel-Buffering", "no"],
      ],
      body: "",
      stream: followOutput(job, store),
      explicitContentType: true,
      unrouted: true,
    };
  }
  if (method === "GET" || method === "HEAD") return jobAnswer(200, job);
  if (method === "DELETE") {
    // 202: asked to stop (a running command gets SIGTERM, then SIGKILL after the hook's grace); 409: already over.
    return jobAnswer(job.stop("cancelled by DELETE /jobs/<id>") ? 202 : 409, job);
  }
  return notAllowed("GET, HEAD, DELETE");
}

function jobAnswer(status: number, job: Job): HookResponse {
  return {
    status,
    headers: [["Content-Type", JSON_TYPE]],
    body: `${JSON.stringify(job.view())}\n`,
    explicitContentType: true,
    unrouted: true,
  };
}

function notAllowed(allow: string): HookResponse {
  return {
    status: 405,
    headers: [
      ["Allow", allow],
      ["Content-Type", TEXT],
    ],
    body: "Method Not Allowed\n",
    explicitContentType: true,
    unrouted: true,
  };
}

/**
 * The output the job keeps (its last `-jobs-output-bytes`), then, while it runs, what it writes next, until it ends;
 * the trailer `X-Webhook-Exit-Code` carries its exit code when it has one. A reader that falls further behind than
 * the kept output skips to what is kept; it never holds the command back.
 */
function followOutput(job: Job, store: JobStore): StreamedBody {
  return new StreamedBody(async (sink) => {
    const size = store.outputBytes;
    let at = Math.max(0, job.view().output_bytes - size);
    const gone = new Promise<void>((resolve) => sink.gone.addEventListener("abort", () => resolve()));
    for (;;) {
      const version = job.version;
      const finished = job.finished;
      const total = job.view().output_bytes;
      at = Math.max(at, total - size);
      for await (const chunk of readOutput(job.dir, { from: at, to: total, size })) {
        if (sink.gone.aborted) return {};
        await sink.write(chunk);
        at += chunk.length;
      }
      at = Math.max(at, total);
      if (finished || sink.gone.aborted) break;
      await Promise.race([job.changed(version), gone]);
    }
    const code = job.view().exit_code;
    return code === null ? {} : { "X-Webhook-Exit-Code": String(code) };
  });
}
