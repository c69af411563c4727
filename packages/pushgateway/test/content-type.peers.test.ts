// How a push's Content-Type picks the parser: upstream's handler/push.go takes delimited protobuf only when Go's
// mime.ParseMediaType succeeds and the parameters match, else text. The same bodies (one protobuf, one text) go to
// Debian's prometheus-pushgateway 1.5.1 and to ours under each header, and the answers must agree. Not compared: a
// parameter repeated with the same value, which 1.5.1's Go 1.19 refuses and current Go (upstream 1.11) accepts;
// ours follows current Go (src/exposition/media-type.test.ts).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Side, send } from "./support/peer-compare.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);

let peer: Side;
let ours: Side;
before(async () => {
  [peer, ours] = await Promise.all([startPeerGateway(), startGateway()]);
});

/** `MetricFamily{name: "m", type: GAUGE, metric: [{gauge: {value: 1}}]}`, varint-delimited. */
const PROTO = Buffer.from("120a016d1801220b120909000000000000f03f", "hex");

const HEADERS = [
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
  'application/vnd.google.protobuf; proto="io.prometheus.client.MetricFamily"; encoding="delimited"',
  "application/vnd.google.protobuf; PROTO=io.prometheus.client.MetricFamily; ENCODING=delimited",
  "Application/Vnd.Google.Protobuf ; proto = io.prometheus.client.MetricFamily ; encoding = delimited",
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited;",
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; x",
  "application/vnd.google.protobuf;; proto=io.prometheus.client.MetricFamily; encoding=delimited",
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; encoding=text",
  'application/vnd.google.protobuf; proto="io.prometheus.client.MetricFamily; encoding=delimited',
  "application/vnd.google.protobuf/x; proto=io.prometheus.client.MetricFamily; encoding=delimited",
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=DELIMITED",
];

for (const header of HEADERS) {
  test(`Content-Type: ${header}`, async () => {
    for (const body of [PROTO, "m 1\n"]) {
      const step = { method: "PUT", path: "/metrics/job/ct", body, headers: { "Content-Type": header } };
      const [p, o] = [await send(peer, step), await send(ours, step)];
      assert.deepEqual(o, p, typeof body === "string" ? "text body" : "protobuf body");
    }
  });
}
