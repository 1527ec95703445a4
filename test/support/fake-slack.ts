// A fake Slack on loopback speaking the parts of the protocol countersign uses:
// incoming webhooks (answer "ok"), chat.postMessage (a JSON { ok, ts } answer,
// bearer token checked) and response_url posts. Every request is recorded.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON (every post countersign makes to Slack is JSON). */
  readonly json: Record<string, unknown>;
}

/** Overrides the answer to one request: a status with an optional body and headers. */
export type SlackAnswer = { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> } | undefined;

export interface FakeSlack {
  /** `http://127.0.0.1:port`, what tests pass as `responseUrlOrigins`. */
  readonly origin: string;
  /** An incoming-webhook URL on this server. */
  readonly webhookUrl: string;
  /** A Web API base on this server (`chat.postMessage` lives under it). */
  readonly apiUrl: string;
  /** A fresh response_url on this server. */
  responseUrl(): string;
  readonly requests: SlackRequest[];
  /** Requests to incoming webhooks and chat.postMessage. */
  messages(): SlackRequest[];
  /** Requests to response_urls. */
  responses(): SlackRequest[];
  close(): Promise<void>;
}

export const BOT_TOKEN = 'xoxb-test-0123456789';

export async function startFakeSlack(answer: (request: SlackRequest) => SlackAnswer = () => undefined): Promise<FakeSlack> {
  const requests: SlackRequest[] = [];
  let next = 0;
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // Recorded as is; the test asserts on it.
      }
      const request: SlackRequest = { path: incoming.url ?? '', headers: incoming.headers, body, json };
      requests.push(request);
      const override = answer(request);
      if (override) {
        response.writeHead(override.status, override.headers ?? {}).end(override.body ?? '');
      } else if (request.path.startsWith('/api/chat.postMessage')) {
        const authorized = incoming.headers.authorization === `Bearer ${BOT_TOKEN}`;
        const reply = authorized ? { ok: true, channel: json['channel'], ts: `1700000000.${String(++next).padStart(6, '0')}` } : { ok: false, error: 'invalid_auth' };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let responseCount = 0;
  return {
    origin,
    webhookUrl: `${origin}/services/T000/B000/secretpath`,
    apiUrl: `${origin}/api`,
    responseUrl: () => `${origin}/actions/T000/${++responseCount}/response-secret`,
    requests,
    messages: () => requests.filter((item) => item.path.startsWith('/services/') || item.path.startsWith('/api/')),
    responses: () => requests.filter((item) => item.path.startsWith('/actions/')),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
