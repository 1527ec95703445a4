// A loopback TCP proxy in front of a server (Redis), to make it unreachable on
// demand or lose one reply after the server acted on the request.
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  readonly url: string;
  /** Cuts every connection and stops listening (connections are refused) until `restore()`: the server looks down. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /**
   * The next request containing `marker` is forwarded, and the reply to it is
   * dropped: the client's connection is closed instead, as when a network
   * fails after the server has done the work. Resolves once that happened.
   */
  dropReplyTo(marker: string): Promise<void>;
  /** The next request containing `marker` is not forwarded: the proxy cuts (as `cut()`) instead. Resolves once it did. */
  cutAt(marker: string): Promise<void>;
  /**
   * Every open connection whose client has sent `marker` goes quiet without closing (half-open): nothing more is
   * forwarded either way and neither side is told. New connections are not affected. Returns how many went quiet.
   */
  silence(marker: string): number;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; sent: string; quiet: boolean }>();
  let armed: { marker: string; dropped: () => void } | undefined;
  let cutMarker: { marker: string; done: () => void } | undefined;

  const server = createServer((client) => {
    const upstream = createConnection(target);
    const pair = { client, upstream, sent: '', quiet: false };
    pairs.add(pair);
    let dropNext: (() => void) | undefined;
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (pair.quiet) return;
      // What the client sent first (its handshake, a SUBSCRIBE), for silence() to find the connection by.
      if (pair.sent.length < 8192) pair.sent += chunk.toString('latin1');
      if (cutMarker && chunk.includes(cutMarker.marker)) {
        const { done } = cutMarker;
        cutMarker = undefined;
        void cut().then(done);
        return;
      }
      if (armed && chunk.includes(armed.marker)) {
        dropNext = armed.dropped;
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.quiet) return;
      if (dropNext) {
        const dropped = dropNext;
        dropNext = undefined;
        end();
        dropped();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await closed;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    cut,
    cutAt(marker) {
      return new Promise((resolve) => (cutMarker = { marker, done: resolve }));
    },
    async restore() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    silence(marker) {
      let count = 0;
      for (const pair of pairs) {
        if (!pair.sent.includes(marker)) continue;
        pair.quiet = true;
        count += 1;
      }
      return count;
    },
    dropReplyTo(marker) {
      return new Promise((resolve) => (armed = { marker, dropped: resolve }));
    },
    async close() {
      if (server.listening) await cut();
    },
  };
}
