// A fake Slack on loopback speaking the parts of the protocol countersign uses:
// incoming webhooks (answer "ok"), the Web API's chat.postMessage, chat.update and
// views.open (JSON { ok, ... } answers, bearer token checked) and response_url
// posts. Every request is recorded. renderMrkdwn and activeMrkdwn read mrkdwn the
// way Slack's clients do, for what a person sees.
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
export type SlackAnswer =
  | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  | undefined;

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
  /** Requests to one Web API method (`chat.update`). */
  calls(method: string): SlackRequest[];
  close(): Promise<void>;
}

export const BOT_TOKEN = 'xoxb-test-0123456789';

export async function startFakeSlack(
  answer: (request: SlackRequest) => SlackAnswer = () => undefined,
): Promise<FakeSlack> {
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
      } else if (request.path.startsWith('/api/')) {
        const method = request.path.slice('/api/'.length);
        const authorized = incoming.headers.authorization === `Bearer ${BOT_TOKEN}`;
        const answers: Record<string, () => Record<string, unknown>> = {
          'chat.postMessage': () => ({
            ok: true,
            channel: json['channel'],
            ts: `1700000000.${String(++next).padStart(6, '0')}`,
          }),
          'chat.update': () => ({ ok: true, channel: json['channel'], ts: json['ts'] }),
          'views.open': () => ({ ok: true, view: { id: `V${++next}`, ...(json['view'] as object) } }),
        };
        const reply = !authorized
          ? { ok: false, error: 'invalid_auth' }
          : (answers[method]?.() ?? { ok: false, error: 'unknown_method' });
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
    calls: (method) => requests.filter((item) => item.path === `/api/${method}`),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// Slack opens a span (*bold*, _italics_, ~strike~, `code`) only after the start, a space or punctuation, and closes
// it only before the end, a space or punctuation; a zero-width space is neither.
const SPAN = /(^|[\s\p{P}])([*_~`])([^\s*_~`](?:[^\n]*?[^\s])?)\2(?=$|[\s\p{P}])/gu;
const SPECIAL = /<([^<>\n]+)>/g;
const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The mentions, links and spans Slack would make active in `text` (code blocks are literal), with what each shows. */
function parse(text: string): { readonly visible: string; readonly active: readonly string[] } {
  const active: string[] = [];
  const parts = text.split('```').map((part, index) => {
    if (index % 2 === 1) return part;
    return part
      .replace(SPECIAL, (raw, inner: string) => {
        active.push(raw);
        const [target = '', label] = inner.split('|');
        if (label !== undefined) return label;
        if (target.startsWith('@')) return target;
        if (target.startsWith('!')) return `@${target.slice(1)}`;
        return target;
      })
      .replace(SPAN, (raw, before: string, _mark: string, inner: string) => {
        active.push(raw.slice(before.length));
        return before + inner;
      });
  });
  return { visible: decode(parts.join('').replace(/\u200B/g, '')), active };
}

/**
 * What a person reads of a mrkdwn text in Slack: mentions and links as their
 * labels, spans without their marks, entities decoded, zero-width spaces unseen.
 */
export function renderMrkdwn(text: string): string {
  return parse(text).visible;
}

/** The mentions, links and spans active in `text` that `modelText` wrote (so did not come from the channel's own template). */
export function activeMrkdwn(text: string, modelText: string): string[] {
  return parse(text).active.filter((raw) => modelText.includes(raw));
}

/** The texts of a Block Kit message a person reads: header, sections and context, in order. */
export function blockTexts(json: Record<string, unknown>): string[] {
  const blocks = json['blocks'] as
    | { type: string; text?: { text: string }; elements?: { type: string; text?: unknown }[] }[]
    | undefined;
  if (blocks === undefined) return [String(json['text'] ?? '')];
  return blocks.flatMap((block) => [
    ...(block.text === undefined ? [] : [block.text.text]),
    ...(block.type === 'context' ? (block.elements ?? []).map((element) => String(element.text)) : []),
  ]);
}
