// Handler tests without a port, after upstream's handler/handler_test.go MockMetricStore: the store records the
// calls the handlers make and answers reads from what a test gives it; validation is the store's own tests' job.

import type { RenderedFamily } from "../../src/exposition/rendered-family.js";
import type { GroupingLabels } from "../../src/grouping-key.js";
import type { GatewayContext, GatewayRequest } from "../../src/handlers/responses.js";
import { WriteQueue } from "../../src/handlers/write-queue.js";
import type {
  AggregateRequest,
  Group,
  MetricStore,
  PushRejection,
  PushRequest,
} from "../../src/store/metric-store.js";

/** One call a handler made on the store. */
export type StoreCall =
  | { readonly op: "push"; readonly request: PushRequest }
  | { readonly op: "delete"; readonly labels: GroupingLabels }
  | { readonly op: "wipe" }
  | { readonly op: "aggregate"; readonly request: AggregateRequest }
  | { readonly op: "deleteMatching"; readonly match: readonly string[] };

/** A store that records writes and serves the groups, families and inconsistency a test sets. */
export class RecordingStore implements MetricStore {
  readonly calls: StoreCall[] = [];
  /** What the next push returns. */
  rejection: PushRejection | undefined;
  storedGroups: Group[] = [];
  storedFamilies: RenderedFamily[] = [];
  problem: string | undefined;

  push(request: PushRequest): PushRejection | undefined {
    this.calls.push({ op: "push", request });
    return this.rejection;
  }
  delete(labels: GroupingLabels): void {
    this.calls.push({ op: "delete", labels });
  }
  wipe(): void {
    this.calls.push({ op: "wipe" });
  }
  aggregate(request: AggregateRequest): PushRejection | undefined {
    this.calls.push({ op: "aggregate", request });
    return this.rejection;
  }
  /** Answers with the labels of every stored group (selection is the memory store's job). */
  deleteMatching(match: readonly string[]): GroupingLabels[] {
    this.calls.push({ op: "deleteMatching", match });
    return this.storedGroups.map((g) => g.labels);
  }
  families(): RenderedFamily[] {
    return this.storedFamilies;
  }
  inconsistency(): string | undefined {
    return this.problem;
  }
  groups(): Group[] {
    return this.storedGroups;
  }
}

/** A handler context over a recording store, with the counter calls recorded; `overrides` set flags. */
export function recordingContext(overrides: Partial<GatewayContext> = {}): {
  ctx: GatewayContext;
  store: RecordingStore;
  counted: [string, string, number][];
  quits: number[];
} {
  const store = new RecordingStore();
  const counted: [string, string, number][] = [];
  const quits: number[] = [];
  const ctx: GatewayContext = {
    store,
    writes: new WriteQueue(),
    now: () => new Date("2026-01-02T03:04:05.678Z"),
    check: true,
    utf8Names: false,
    enableLifecycle: false,
    enableAdminApi: false,
    telemetryPath: "/metrics",
    pathPrefix: "",
    groupTtlMs: 0,
    ownFamilies: async () => [],
    status: () => ({ flags: { "web.telemetry-path": "/metrics" } }),
    quit: () => quits.push(1),
    maxBodyBytes: 0,
    aggregateGauges: "latest",
    onRequest: (handler, method, status) => counted.push([handler, method, status]),
    onPush: () => {},
    ...overrides,
  };
  return { ctx, store, counted, quits };
}

/** A literal request: method and path, optional headers and body. */
export function request(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; query?: string } = {},
): GatewayRequest {
  return {
    method,
    path,
    query: options.query,
    headers: options.headers ?? {},
    body: typeof options.body === "string" ? Buffer.from(options.body) : (options.body ?? Buffer.alloc(0)),
  };
}

/** A response body as one string (a scrape's body is a chunk iterator). */
export function bodyText(body: string | Buffer | Iterable<string>): string {
  if (typeof body === "string") return body;
  if (Buffer.isBuffer(body)) return body.toString("utf8");
  return [...body].join("");
}
