// A TCP relay on 127.0.0.1 in front of a server, for the TLS tests: it records every byte the server sends (the
// alerts a TLS client only reports as an error code) and can hold a client's bytes after its first TLS record (the
// ClientHello), so a handshake can be stopped half-way while the test changes the server's configuration.
import { connect, createServer, type Socket } from "node:net";

/** One relayed connection. */
export interface TappedConnection {
  /** Everything the server sent so far. */
  fromServer(): Buffer;
  /** Resolves once the server sent something (with `hold`: its answer to the ClientHello). */
  readonly answered: Promise<void>;
  /** Resolves when the server closed its side. */
  readonly serverClosed: Promise<void>;
  /** Sends on what the client wrote after its first record, and everything after. */
  release(): void;
}

/** A relay listening on `port`; `next()` resolves with the next connection made through it. */
export interface Tap {
  readonly port: number;
  next(): Promise<TappedConnection>;
  close(): Promise<void>;
}

/** Starts a relay to `target` on 127.0.0.1; with `hold`, each connection's bytes after its first TLS record wait. */
export async function startTap(target: number, options: { hold?: boolean } = {}): Promise<Tap> {
  const waiting: ((c: TappedConnection) => void)[] = [];
  const made: TappedConnection[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const received: Buffer[] = [];
    let held: Buffer[] | undefined = options.hold ? [] : undefined;
    let fromClient = Buffer.alloc(0);
    let firstRecordSent = false;
    let answered!: () => void;
    let serverClosed!: () => void;
    const connection: TappedConnection = {
      fromServer: () => Buffer.concat(received),
      answered: new Promise((r) => {
        answered = r;
      }),
      serverClosed: new Promise((r) => {
        serverClosed = r;
      }),
      release: () => {
        const rest = held ?? [];
        held = undefined;
        for (const chunk of rest) upstream.write(chunk);
      },
    };
    client.on("data", (chunk: Buffer) => {
      if (held === undefined) {
        upstream.write(chunk);
        return;
      }
      if (firstRecordSent) {
        held.push(chunk);
        return;
      }
      // The first record: its 5-byte header gives its length; what follows it waits.
      fromClient = Buffer.concat([fromClient, chunk]);
      if (fromClient.length < 5) return;
      const end = 5 + fromClient.readUInt16BE(3);
      if (fromClient.length < end) return;
      firstRecordSent = true;
      upstream.write(fromClient.subarray(0, end));
      if (fromClient.length > end) held.push(fromClient.subarray(end));
    });
    upstream.on("data", (chunk: Buffer) => {
      received.push(chunk);
      answered();
      client.write(chunk);
    });
    upstream.on("end", () => client.end());
    client.on("end", () => upstream.end());
    const closed = () => {
      serverClosed();
      client.destroy();
    };
    upstream.on("close", closed);
    upstream.on("error", closed);
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    const waiter = waiting.shift();
    if (waiter) waiter(connection);
    else made.push(connection);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("tap has no port");
  return {
    port: address.port,
    next: () => {
      const ready = made.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
