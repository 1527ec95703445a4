// A fake Telegram Bot API on loopback speaking the parts of the protocol
// countersign uses: POST /bot<token>/sendMessage, /answerCallbackQuery and
// /editMessageText with JSON bodies, answered { ok: true, result: … } (or
// { ok: false, error_code, description } as Telegram does: 401 for another
// token, 400 for HTML it cannot parse, a text over 4096 characters or
// callback_data over 64 bytes). Every request is recorded. renderHtml reads
// a parse_mode HTML text as a person sees it.
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
  /** The id of the message a successful sendMessage made. */
  messageId?: number;
}

/** Overrides the answer to one request. */
export type TelegramAnswer =
  | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  | undefined;

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

/** The tags Telegram's HTML parse mode knows. */
const SUPPORTED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'code',
  'pre',
  'blockquote',
]);

/** A parse_mode HTML text as Telegram reads it: what a person sees, the tags it holds, or why Telegram refuses it. */
export function renderHtml(html: string): {
  readonly visible: string;
  readonly tags: readonly string[];
  readonly error?: string;
} {
  const tags: string[] = [];
  const open: string[] = [];
  let error: string | undefined;
  for (const match of html.matchAll(/<(\/?)([^\s>]*)[^>]*>|<|&(?!(?:lt|gt|amp|quot|#\d+);)/g)) {
    if (match[0] === '<' || match[0] === '&') {
      error ??= `can't parse entities: character '${match[0]}' at byte offset ${match.index} is reserved`;
      continue;
    }
    const [, closing, name = ''] = match;
    tags.push(`<${closing}${name}>`);
    if (!SUPPORTED_TAGS.has(name))
      error ??= `can't parse entities: Unsupported start tag "${name}" at byte offset ${match.index}`;
    else if (closing === '') open.push(name);
    else if (open.pop() !== name)
      error ??= `can't parse entities: Can't find end tag corresponding to start tag "${name}"`;
  }
  if (open.length > 0) error ??= `can't parse entities: Can't find end tag corresponding to start tag "${open.at(-1)}"`;
  const visible = html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return { visible, tags, ...(error === undefined ? {} : { error }) };
}

/** Why Telegram would refuse a sendMessage or editMessageText body, if it would. */
function refusal(json: Record<string, unknown>): string | undefined {
  const text = typeof json['text'] === 'string' ? json['text'] : '';
  const rendered = json['parse_mode'] === 'HTML' ? renderHtml(text) : { visible: text };
  if ('error' in rendered && rendered.error) return `Bad Request: ${rendered.error}`;
  if (rendered.visible.trim() === '') return 'Bad Request: message text is empty';
  if (rendered.visible.length > 4096) return 'Bad Request: message is too long';
  const keyboard =
    (json['reply_markup'] as { inline_keyboard?: { callback_data?: string }[][] } | undefined)?.inline_keyboard ?? [];
  if (keyboard.flat().some((button) => Buffer.byteLength(button.callback_data ?? '') > 64))
    return 'Bad Request: BUTTON_DATA_INVALID';
  return undefined;
}

/** The numeric id Telegram answers with for a chat_id (a channel's @username gets a fixed one). */
const chatIdOf = (value: unknown) =>
  typeof value === 'string' && /^-?\d+$/.test(value)
    ? Number(value)
    : typeof value === 'number'
      ? value
      : -1009876543210;

export async function startFakeTelegram(
  answer: (request: TelegramRequest) => TelegramAnswer = () => undefined,
): Promise<FakeTelegram> {
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
      const request: TelegramRequest = {
        method: match?.[2] ?? '',
        token: match?.[1] ?? '',
        path,
        headers: incoming.headers,
        body,
        json,
      };
      requests.push(request);
      const override = answer(request);
      const reply = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const refuse = (status: number, description: string) =>
        reply(status, { ok: false, error_code: status, description });
      const refused =
        request.method === 'sendMessage' || request.method === 'editMessageText' ? refusal(json) : undefined;
      const chat = { id: chatIdOf(json['chat_id']), type: 'supergroup' };
      if (override) {
        response.writeHead(override.status, override.headers ?? {}).end(override.body ?? '');
      } else if (!match) {
        refuse(404, 'Not Found');
      } else if (request.token !== TELEGRAM_BOT_TOKEN) {
        refuse(401, 'Unauthorized');
      } else if (refused !== undefined) {
        refuse(400, refused);
      } else if (request.method === 'sendMessage') {
        const thread =
          json['message_thread_id'] === undefined
            ? {}
            : { message_thread_id: json['message_thread_id'], is_topic_message: true };
        request.messageId = ++nextMessageId;
        reply(200, {
          ok: true,
          result: { message_id: request.messageId, date: 1_700_000_000, chat, ...thread, text: json['text'] },
        });
      } else if (request.method === 'answerCallbackQuery') {
        reply(200, { ok: true, result: true });
      } else if (request.method === 'editMessageText') {
        reply(200, { ok: true, result: { message_id: json['message_id'], chat, text: json['text'] } });
      } else {
        refuse(404, 'Not Found: method not found');
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
