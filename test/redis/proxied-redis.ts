// A suite's Redis connections for losing replies: one through a proxy that can drop the reply to a command Redis
// already ran (ioredis then resends it on a new connection), and a direct one to look. Opened before the suite's
// tests; closed, with the suite's prefix removed, after them.
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { connect, removePrefix } from './redis-harness.js';

export interface ProxiedRedis {
  readonly proxy: TcpProxy;
  readonly viaProxy: Redis;
  readonly direct: Redis;
  /** Runs `act` with the reply to the first request containing `marker` lost after Redis ran it. */
  lose<T>(marker: string, act: () => Promise<T>): Promise<T>;
}

/** Registers the suite's hooks; the connections are there from the first `beforeAll` registered after this call on. */
export function proxiedRedis(url: string, prefix: string): ProxiedRedis {
  const open: { proxy?: TcpProxy; viaProxy?: Redis; direct?: Redis } = {};
  beforeAll(async () => {
    const { hostname, port } = new URL(url);
    open.proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
    open.viaProxy = new Redis(open.proxy.url, { maxRetriesPerRequest: 5 });
    open.viaProxy.on('error', () => {});
    open.direct = connect(url);
  });
  afterAll(async () => {
    await removePrefix(open.direct!, prefix);
    open.viaProxy!.disconnect();
    open.direct!.disconnect();
    await open.proxy!.close();
  });
  return {
    get proxy() {
      return open.proxy!;
    },
    get viaProxy() {
      return open.viaProxy!;
    },
    get direct() {
      return open.direct!;
    },
    async lose(marker, act) {
      const lost = open.proxy!.dropReplyTo(marker);
      const result = await act();
      await lost;
      return result;
    },
  };
}
