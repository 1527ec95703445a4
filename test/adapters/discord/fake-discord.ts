// A fake Discord HTTP API on loopback speaking the parts countersign uses: POST /channels/{id}/messages and
// PATCH /channels/{id}/messages/{id} (Authorization: Bot <token>, else 401), and the interaction webhook's
// PATCH /webhooks/{app}/{token}/messages/@original and POST /webhooks/{app}/{token} (no Authorization). Answers
// are message objects; a fault plan makes the next channel posts fail first, a 429 the way Discord sends it
// (JSON `retry_after` in seconds with fractions, and a whole-second Retry-After header). Every request is recorded.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DISCORD_BOT_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GxYzAb.test-bot-token_0123456789abcdefghij';
export const CHANNEL_ID = '1100000000000000001';
export const APPLICATION_ID = '1200000000000000001';
/** The id of the first message the fake posts; each next one is one more. */
export const FIRST_MESSAGE_ID = '1300000000000000000';

export interface DiscordRequest {
  readonly method: string;
  /** The path under /api/v10. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly json: Record<string, unknown>;
}

/** How the next channel posts are answered before the fake succeeds. */
export type DiscordFault = { readonly status: number; readonly retryAfterSeconds?: number };

export interface FakeDiscord {
  /** `http://127.0.0.1:port/api/v10`, what tests pass as `apiUrl`. */
  readonly apiUrl: string;
  readonly requests: DiscordRequest[];
  /** Channel posts that succeeded, in order. */
  posts(): DiscordRequest[];
  close(): Promise<void>;
}

export async function startFakeDiscord(
  options: { readonly faults?: readonly DiscordFault[]; readonly echoSecretsInErrors?: boolean } = {},
): Promise<FakeDiscord> {
  const requests: DiscordRequest[] = [];
  const succeeded: DiscordRequest[] = [];
  const faults = [...(options.faults ?? [])];
  let nextId = BigInt(FIRST_MESSAGE_ID);
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (incoming.url ?? '').replace(/^\/api\/v10/, '');
      const request: DiscordRequest = {
        method: incoming.method ?? '',
        path,
        headers: incoming.headers,
        json: body === '' ? {} : (JSON.parse(body) as Record<string, unknown>),
      };
      requests.push(request);
      const reply = (status: number, value: unknown, headers: Record<string, string> = {}) =>
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      const message = (channelId: string, id: string) => ({ id, channel_id: channelId, type: 0, ...request.json });
      const post = /^\/channels\/(\d+)\/messages$/.exec(path);
      const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
      const hook = /^\/webhooks\/(\d+)\/([\w.-]+)(\/messages\/@original)?$/.exec(path);
      if ((post || edit) && incoming.headers.authorization !== `Bot ${DISCORD_BOT_TOKEN}`)
        return reply(401, { message: '401: Unauthorized', code: 0 });
      if (post && request.method === 'POST') {
        const fault = faults.shift();
        if (fault?.status === 429) {
          const seconds = fault.retryAfterSeconds ?? 1;
          return reply(
            429,
            { message: 'You are being rate limited.', retry_after: seconds, global: false },
            { 'retry-after': String(Math.ceil(seconds)) },
          );
        }
        if (fault) {
          const echoed = options.echoSecretsInErrors
            ? ` (${incoming.headers.authorization ?? ''} at ${incoming.url ?? ''})`
            : '';
          return reply(fault.status, { message: `Missing Permissions${echoed}`, code: 50013 });
        }
        succeeded.push(request);
        return reply(200, message(post[1]!, String(nextId++)));
      }
      if (edit && request.method === 'PATCH') return reply(200, message(edit[1]!, edit[2]!));
      if (hook?.[3] && request.method === 'PATCH') return reply(200, message(CHANNEL_ID, '1'));
      if (hook && request.method === 'POST') return reply(200, message(CHANNEL_ID, String(nextId++)));
      return reply(404, { message: '404: Not Found', code: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`,
    requests,
    posts: () => succeeded,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
