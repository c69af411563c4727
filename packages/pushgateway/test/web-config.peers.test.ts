// --web.config.file beside Debian's prometheus-pushgateway 1.5.1 (its exporter-toolkit predates rate_limit,
// client_allowed_sans and inline certificates; those are checked against upstream's own tests in web-config.test.ts):
// the strict YAML error, client certificates required and verified, basic auth answers, headers, and a user added
// while running.
import assert from "node:assert/strict";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { fileURLToPath } from "node:url";
import { GO_CIPHER_CHOICES, negotiatedCipher } from "./support/cipher-choice.js";
import { heldHandshake, OPEN_TLS, STRICT_TLS } from "./support/held-handshake.js";
import { http2Get } from "./support/http2-get.js";
import { PEER_GATEWAY, startPeerGateway } from "./support/peers.js";
import { freePort, GATEWAY_BIN, startGateway, stop, stopAll } from "./support/processes.js";
import { parseAnswer, rawUntilClose } from "./support/raw-http.js";
import { runUntilExit } from "./support/run-until-exit.js";
import { startTap } from "./support/tcp-tap.js";
import { withTempDir } from "./support/temp-dir.js";
import { tlsAttempt } from "./support/tls-attempt.js";

const DATA = fileURLToPath(new URL("../../test/fixtures/web-config/", import.meta.url));
const file = (name: string) => join(DATA, name);

after(stopAll);

/** Starts 1.5.1 and ours with the same web config; the `http(s)://` bases, peer first. */
async function both(config: string): Promise<{ peer: string; ours: string; stop: () => Promise<void> }> {
  const [peer, ours] = await Promise.all([
    startPeerGateway([`--web.config.file=${config}`]),
    startGateway([`--web.config.file=${config}`]),
  ]);
  return {
    peer: peer.base,
    ours: ours.base,
    stop: async () => {
      await Promise.all([stop(peer.child), stop(ours.child)]);
    },
  };
}

/** A TLS GET of /-/healthy (server certificate not checked here), with or without a client certificate. */
function tlsGet(base: string, cert?: string): Promise<number> {
  const port = Number(new URL(base).port);
  return new Promise((resolve, reject) => {
    const load =
      cert === undefined
        ? Promise.resolve(undefined)
        : Promise.all([readFile(file(`${cert}.pem`)), readFile(file(`${cert}.key`))]);
    void load.then((pair) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/-/healthy",
          rejectUnauthorized: false,
          agent: false,
          timeout: 5000,
          ...(pair === undefined ? {} : { cert: pair[0], key: pair[1] }),
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      req.end();
    }, reject);
  });
}

/** A TLS PUT (server certificate not checked here); resolves with the status. */
function tlsPut(base: string, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port: Number(new URL(base).port),
        path,
        method: "PUT",
        rejectUnauthorized: false,
        agent: false,
        timeout: 5000,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

test("a misspelt key stops the start with yaml.v2's error, word for word as 1.5.1's", async () => {
  const config = file("web_config_junk_key.yml");
  const run = async (command: string, args: string[]) =>
    runUntilExit(command, [
      ...args,
      `--web.listen-address=127.0.0.1:${await freePort()}`,
      `--web.config.file=${config}`,
    ]);
  const [peer, ours] = await Promise.all([
    run(PEER_GATEWAY, ["--persistence.file="]),
    run(process.execPath, [GATEWAY_BIN]),
  ]);
  const expected = "yaml: unmarshal errors:\\n  line 2: field cert_filse not found in type web.TLSConfig";
  assert.ok(peer.log.includes(expected), peer.log);
  assert.ok(ours.log.includes(expected), ours.log);
  // Ours does not serve at all; 1.5.1 stops its server and exits 0 (start-errors.peers.test.ts).
  assert.equal(ours.code, 1);
  assert.equal(ours.listened, false);
});

test("RequireAndVerifyClientCert: both serve a client with the CA's certificate and refuse one without", async () => {
  const g = await both(file("tls_config_noAuth.requireandverifyclientcert.good.yml"));
  try {
    for (const base of [g.peer, g.ours]) {
      const https = base.replace("http:", "https:");
      assert.equal(await tlsGet(https, "client_selfsigned"), 200, base);
      await assert.rejects(tlsGet(https), Error, base);
      await assert.rejects(tlsGet(https, "client2_selfsigned"), Error, base);
    }
  } finally {
    await g.stop();
  }
});

test("basic auth: the 401 as 1.5.1 answers it (status, body, headers); right credentials 200; headers configured", async () => {
  const g = await both(file("web_config_users_noTLS.good.yml"));
  try {
    const answer = async (base: string, auth?: string) => {
      const r = await fetch(
        `${base}/-/healthy`,
        auth === undefined ? {} : { headers: { Authorization: auth } },
      );
      return {
        status: r.status,
        body: await r.text(),
        contentType: r.headers.get("content-type"),
        authenticate: r.headers.get("www-authenticate"),
        nosniff: r.headers.get("x-content-type-options"),
      };
    };
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;
    for (const auth of [undefined, basic("dave", "wrong"), basic("nobody", "x"), "Bearer x"])
      assert.deepEqual(await answer(g.ours, auth), await answer(g.peer, auth), String(auth));
    assert.equal((await answer(g.ours, basic("dave", "dave123"))).status, 200);
    assert.equal((await answer(g.peer, basic("dave", "dave123"))).status, 200);
  } finally {
    await g.stop();
  }
  const h = await both(file("web_config_headers.good.yml"));
  try {
    const headers = async (base: string) => {
      const r = await fetch(`${base}/-/healthy`);
      return [
        "strict-transport-security",
        "x-frame-options",
        "x-content-type-options",
        "x-xss-protection",
      ].map((n) => r.headers.get(n));
    };
    assert.deepEqual(await headers(h.ours), await headers(h.peer));
  } finally {
    await h.stop();
  }
});

test("a user added to the file while running logs in at once, on both", async () => {
  await withTempDir("pg-web-peers-", async (dir) => {
    const config = join(dir, "web.yml");
    await copyFile(file("web_config_users_noTLS.good.yml"), config);
    const full = await readFile(config, "utf8");
    await writeFile(config, full.replace(/^\s+dave:.*\n/m, ""));
    const g = await both(config);
    try {
      const dave = { headers: { Authorization: `Basic ${Buffer.from("dave:dave123").toString("base64")}` } };
      for (const base of [g.peer, g.ours])
        assert.equal((await fetch(`${base}/-/healthy`, dave)).status, 401, base);
      await writeFile(config, full);
      for (const base of [g.peer, g.ours])
        assert.equal((await fetch(`${base}/-/healthy`, dave)).status, 200, base);
    } finally {
      await g.stop();
    }
  });
});

test("over TLS, a request followed at once by close_notify and FIN is answered in full, as by 1.5.1", async () => {
  const g = await both(file("web_config_noAuth.good.yml"));
  try {
    const exchange = (base: string) =>
      new Promise<string>((resolve, reject) => {
        // allowHalfOpen (net.Socket's option, which node's types leave out of tls.connect's): the client keeps reading
        // after its own end, as `printf ... | openssl s_client` or a health checker does.
        const options = {
          port: Number(new URL(base).port),
          host: "127.0.0.1",
          rejectUnauthorized: false,
          allowHalfOpen: true,
        };
        const socket = tlsConnect(options, () =>
          socket.end("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"),
        );
        let text = "";
        socket.setTimeout(5000, () =>
          socket.destroy(new Error(`no end within 5 s after ${text.length} bytes`)),
        );
        socket.on("data", (c: Buffer) => {
          text += c.toString("latin1");
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    // A gzip scrape past 256 KiB: compressed as it streams, after awaits, the case node's default drops.
    let big = "";
    for (let i = 0; i < 6000; i++) big += `fin_filler{shard="${i}",padding="${"x".repeat(40)}"} ${i}\n`;
    for (const base of [g.peer, g.ours]) assert.equal(await tlsPut(base, "/metrics/job/big", big), 200, base);
    for (const base of [g.peer, g.ours]) {
      const { status, head, body } = parseAnswer(await exchange(base));
      assert.equal(status, "HTTP/1.1 200 OK", base);
      assert.match(head, /^content-encoding: gzip$/im, base);
      assert.match(body, /^pushgateway_build_info\{/m, base);
      assert.match(body, /^fin_filler\{instance="",job="big",padding="x+",shard="5999"\} 5999$/m, base);
    }
  } finally {
    await g.stop();
  }
});

test("over TLS both offer HTTP/2 by ALPN and answer on it; with http2: false neither does", async () => {
  const on = await both(file("web_config_noAuth.good.yml"));
  try {
    for (const base of [on.peer, on.ours])
      assert.deepEqual(
        await http2Get(base.replace("http:", "https:")),
        { alpn: "h2", status: 200, body: "OK" },
        base,
      );
  } finally {
    await on.stop();
  }
  const off = await both(file("web_config_noAuth_noHTTP2.good.yml"));
  try {
    for (const base of [off.peer, off.ours])
      await assert.rejects(http2Get(base.replace("http:", "https:")), Error, base);
  } finally {
    await off.stop();
  }
});

test("a plain HTTP request on the TLS port: the same bytes from both, then a close; other bytes closed unanswered", async () => {
  const g = await both(file("web_config_noAuth.good.yml"));
  try {
    for (const bytes of [
      "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n",
      "PUT /metrics/job/x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\na 1\n",
      "DELETE /metrics/job/x HTTP/1.1\r\nHost: x\r\n\r\n",
      "hello there\n",
      // An SSLv2 hello (protocol_version alert), a record version from 16.0 up, application data, close_notify.
      ...["802e0100020015000000100000", "16100000020000", "1703030005aaaaaaaaaa", "15030300020100"].map(
        (hex) => Buffer.from(hex, "hex"),
      ),
    ]) {
      const [peer, ours] = await Promise.all(
        [g.peer, g.ours].map((base) => rawUntilClose(Number(new URL(base).port), bytes)),
      );
      assert.equal(ours, peer, bytes.toString("hex"));
    }
    assert.equal(
      await rawUntilClose(Number(new URL(g.peer).port), "GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
      "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
    );
  } finally {
    await g.stop();
  }
});

test("a refused client certificate: on TLS 1.2 the same alert bytes and client error from both; on TLS 1.3 no answer from either", async () => {
  const g = await both(file("tls_config_noAuth.requireandverifyclientcert.good.yml"));
  const taps = await Promise.all([g.peer, g.ours].map((base) => startTap(Number(new URL(base).port))));
  try {
    for (const cert of [undefined, "client2_selfsigned"]) {
      const seen = [];
      for (const tap of taps) {
        const next = tap.next();
        const outcome = await tlsAttempt(tap.port, {
          maxVersion: "TLSv1.2",
          ...(cert ? { cert: file(cert) } : {}),
        });
        const connection = await next;
        await connection.serverClosed;
        seen.push({ ...outcome, last: connection.fromServer().subarray(-7).toString("hex") });
      }
      assert.deepEqual(seen[1], seen[0], String(cert));
      assert.deepEqual(
        seen[0],
        {
          handshake: false,
          error: "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
          status: undefined,
          last: "1503030002022a",
        },
        String(cert),
      );
      for (const tap of taps) {
        const next = tap.next();
        const late = await tlsAttempt(tap.port, cert ? { cert: file(cert) } : {});
        assert.equal(late.status, undefined, `TLS 1.3 ${String(cert)}`);
        await next;
      }
    }
  } finally {
    await Promise.all(taps.map((t) => t.close()));
    await g.stop();
  }
});

test("a web config turned invalid while running: the next handshake gets the same internal_error alert from both", async () => {
  await withTempDir("pg-web-peers-invalid-", async (dir) => {
    for (const f of ["server.crt", "server.key"]) await copyFile(file(f), join(dir, f));
    const config = join(dir, "web.yml");
    const good = 'tls_server_config:\n  cert_file: "server.crt"\n  key_file: "server.key"\n';
    await writeFile(config, good);
    const g = await both(config);
    const taps = await Promise.all([g.peer, g.ours].map((base) => startTap(Number(new URL(base).port))));
    try {
      await writeFile(config, "tls_server_config: [\n");
      const seen = [];
      for (const tap of taps) {
        const next = tap.next();
        const outcome = await tlsAttempt(tap.port);
        seen.push({ ...outcome, bytes: (await next).fromServer().toString("hex") });
      }
      assert.deepEqual(seen[1], seen[0]);
      assert.deepEqual(seen[0], {
        handshake: false,
        error: "ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR",
        status: undefined,
        bytes: "15030100020250",
      });
      await writeFile(config, good);
      for (const tap of taps) assert.equal((await tlsAttempt(tap.port)).status, "HTTP/1.1 200 OK");
    } finally {
      await Promise.all(taps.map((t) => t.close()));
      await g.stop();
    }
  });
});

test("a handshake held while the file changes is judged by the file it started with, on both", async () => {
  await withTempDir("pg-web-peers-midshake-", async (dir) => {
    for (const f of ["server.crt", "server.key", "client_selfsigned.pem"])
      await copyFile(file(f), join(dir, f));
    const config = join(dir, "web.yml");
    await writeFile(config, OPEN_TLS);
    const g = await both(config);
    const bases = [g.peer, g.ours];
    const taps = await Promise.all(bases.map((base) => startTap(Number(new URL(base).port), { hold: true })));
    try {
      for (const [from, to, expected] of [
        [OPEN_TLS, STRICT_TLS, "HTTP/1.1 200 OK"],
        [STRICT_TLS, OPEN_TLS, undefined],
      ] as const)
        for (const [i, tap] of taps.entries()) {
          const port = Number(new URL(bases[i] ?? "").port);
          const seen = await heldHandshake({ config, from, to, tap, port });
          const what = `${i === 0 ? "1.5.1" : "ours"}, ${from === OPEN_TLS ? "open" : "strict"} first`;
          assert.equal(seen.meanwhile.status, to === OPEN_TLS ? "HTTP/1.1 200 OK" : undefined, what);
          assert.equal(seen.held.status, expected, what);
        }
    } finally {
      await Promise.all(taps.map((t) => t.close()));
      await g.stop();
    }
  });
});

test("the TLS suite picked for each client offer is the same from both", async () => {
  for (const config of new Set(GO_CIPHER_CHOICES.map(([c]) => c))) {
    const g = await both(file(config));
    try {
      for (const [, offer, expected] of GO_CIPHER_CHOICES.filter(([c]) => c === config)) {
        const [peer, ours] = await Promise.all(
          [g.peer, g.ours].map((base) => negotiatedCipher(Number(new URL(base).port), offer)),
        );
        assert.equal(peer, expected, `1.5.1: ${config} ${JSON.stringify(offer)}`);
        assert.equal(ours, peer, `${config} ${JSON.stringify(offer)}`);
      }
    } finally {
      await g.stop();
    }
  }
});

test("VerifyClientCertIfGiven without a CA: both check a given certificate against their root store", async () => {
  // Go's system roots come from SSL_CERT_FILE, node's store takes NODE_EXTRA_CA_CERTS: the same one certificate.
  process.env.SSL_CERT_FILE = file("client_selfsigned.pem");
  process.env.NODE_EXTRA_CA_CERTS = file("client_selfsigned.pem");
  const g = await both(file("web_config_noAuth.good.yml")).finally(() => {
    delete process.env.SSL_CERT_FILE;
    delete process.env.NODE_EXTRA_CA_CERTS;
  });
  try {
    for (const base of [g.peer, g.ours]) {
      const port = Number(new URL(base).port);
      assert.equal(
        (await tlsAttempt(port, { cert: file("client_selfsigned") })).status,
        "HTTP/1.1 200 OK",
        base,
      );
      assert.equal((await tlsAttempt(port, { cert: file("client2_selfsigned") })).status, undefined, base);
      assert.equal((await tlsAttempt(port)).status, "HTTP/1.1 200 OK", base);
    }
  } finally {
    await g.stop();
  }
});
