// A fake Telegram Bot API on loopback speaking the parts of the protocol
// countersign uses: POST /bot<token>/sendMessage, /answerCallbackQuery and
// /editMessageText with JSON bodies, answered { ok: true, result: … } (or
// { ok: false, error_code: 401, description: 'Unauthorized' } for another
// token). Every request is recorded.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TelegramRequest {
  /** The Bot API method, e.g. `sendMessage`. */
  readonly method: string;
  /** The token in the path. */
  readonly token: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: Record<string, unknown>;
}

/** Overrides the answer to one request. */
export type TelegramAnswer = { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> } | undefined;

export interface FakeTelegram {
  /** `http://127.0.0.1:port`, what tests pass as `apiUrl`. */
  readonly apiUrl: string;
  readonly requests: TelegramRequest[];
  /** Requests to one method. */
  calls(method: string): TelegramRequest[];
  close(): Promise<void>;
}

export const TELEGRAM_BOT_TOKEN = '123456789:AAE-test_Token0123456789abcdefXYZ';
export const CHAT_ID = -1001234567890;

export async function startFakeTelegram(answer: (request: TelegramRequest) => TelegramAnswer = () => undefined): Promise<FakeTelegram> {
  const requests: TelegramRequest[] = [];
  let nextMessageId = 100;
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
      const path = incoming.url ?? '';
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
      const request: TelegramRequest = { method: match?.[2] ?? '', token: match?.[1] ?? '', path, headers: incoming.headers, body, json };
      requests.push(request);
      const override = answer(request);
      const reply = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (override) {
        response.writeHead(override.status, override.headers ?? {}).end(override.body ?? '');
      } else if (!match) {
        reply(404, { ok: false, error_code: 404, description: 'Not Found' });
      } else if (request.token !== TELEGRAM_BOT_TOKEN) {
        reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      } else if (request.method === 'sendMessage') {
        reply(200, { ok: true, result: { message_id: ++nextMessageId, date: 1_700_000_000, chat: { id: json['chat_id'], type: 'supergroup' }, text: json['text'] } });
      } else if (request.method === 'answerCallbackQuery') {
        reply(200, { ok: true, result: true });
      } else if (request.method === 'editMessageText') {
        reply(200, { ok: true, result: { message_id: json['message_id'], chat: { id: json['chat_id'], type: 'supergroup' }, text: json['text'] } });
      } else {
        reply(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl,
    requests,
    calls: (method) => requests.filter((item) => item.method === method),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
