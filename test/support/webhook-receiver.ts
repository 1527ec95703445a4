// A real HTTP receiver on loopback that records every delivery and answers as a test tells it to.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** 1 for the first request this receiver got, 2 for the next … */
  readonly seq: number;
}

/** What to answer: a status (with optional headers and body), or `'hang'` to never answer. */
export type ReceiverAnswer =
  | number
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly deliveries: ReceivedDelivery[];
  /** Resolves once `count` deliveries have arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (delivery: ReceivedDelivery) => ReceiverAnswer = () => 204,
): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        seq: deliveries.length + 1,
      };
      deliveries.push(delivery);
      for (const waiter of waiters.filter((item) => deliveries.length >= item.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const reply = answer(delivery);
      if (reply === 'hang') {
        hanging.add(response);
        return;
      }
      const { status, headers = {}, body = '' } = typeof reply === 'number' ? { status: reply } : reply;
      response.writeHead(status, headers).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    waitFor(count) {
      if (deliveries.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
