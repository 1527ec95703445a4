// A fake Anthropic Messages API on loopback: POST /v1/messages with the x-api-key and anthropic-version
// headers, answered with a scripted `message` (or the API's error shape: 401 authentication_error for another
// key, echoing it as a careless proxy might; 400 invalid_request_error for a conversation the real API refuses:
// turns not alternating, a tool_use without its tool_result in the very next user turn, or, with thinking on,
// a last assistant turn that does not start with its thinking). Every request is recorded, body as sent.
// A request with `stream: true` gets the same scripted message as the API streams it: server-sent events
// message_start, content_block_start/delta/stop per block (text, thinking and tool input in pieces, the signature
// as a signature_delta), ping, message_delta with stop_reason and usage, message_stop; or a stream interrupted
// after some events (cut, an `error` event, or held open).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ANTHROPIC_API_KEY = 'sk-ant-api03-test-KEY-0123456789';

export interface AnthropicRequest {
  readonly headers: IncomingHttpHeaders;
  /** The body byte for byte. */
  readonly body: string;
  readonly json: {
    readonly messages: readonly WireTurn[];
    readonly thinking?: unknown;
    readonly [field: string]: unknown;
  };
}

export interface WireTurn {
  readonly role: string;
  readonly content: readonly {
    readonly type: string;
    readonly id?: string;
    readonly tool_use_id?: string;
    readonly [field: string]: unknown;
  }[];
}

/** An HTTP answer: a status, a JSON body, headers; streamed, it can stop after `interrupt.after` events. */
export interface AnthropicReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
  readonly interrupt?: { readonly after: number; readonly with: 'cut' | 'error' | 'hold' };
}

/** A scripted answer, or `hold` to answer never (for aborts). */
export type AnthropicAnswer = AnthropicReply | 'hold';

export interface FakeAnthropic {
  /** `http://127.0.0.1:port`, what tests pass as `baseUrl`. */
  readonly baseUrl: string;
  readonly requests: AnthropicRequest[];
  /** Answers for the next requests, in order; when none is left, a 500. */
  answer(...answers: AnthropicAnswer[]): void;
  /** Sends the rest of every stream held open (`interrupt.with: 'hold'`). */
  resume(): void;
  close(): Promise<void>;
}

/** A Messages API answer with these content blocks. */
export function messageAnswer(
  content: readonly unknown[],
  details: { stop_reason?: string; usage?: Record<string, number> } = {},
): AnthropicReply {
  return {
    status: 200,
    body: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: details.stop_reason ?? 'end_turn',
      stop_sequence: null,
      usage: details.usage ?? { input_tokens: 10, output_tokens: 5 },
    },
  };
}

const apiError = (status: number, type: string, message: string): AnthropicReply => ({
  status,
  body: { type: 'error', error: { type, message } },
});

/** What the real API says about a conversation it refuses, if it would. */
function refusal(json: AnthropicRequest['json']): string | undefined {
  const turns = json.messages;
  for (const [index, turn] of turns.entries()) {
    if (index > 0 && turns[index - 1]!.role === turn.role)
      return `messages: roles must alternate between "user" and "assistant", found two "${turn.role}" turns in a row at ${index}`;
    const uses = turn.role === 'assistant' ? turn.content.filter((block) => block.type === 'tool_use') : [];
    const next = turns[index + 1];
    if (uses.length > 0 && next) {
      const answered = new Set(
        next.content.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id),
      );
      const missing = uses.filter((use) => !answered.has(use.id));
      if (missing.length > 0)
        return `messages.${index}: tool_use ids were found without tool_result blocks immediately after: ${missing.map((use) => use.id).join(', ')}`;
    }
  }
  const lastAssistant = turns.findLast((turn) => turn.role === 'assistant');
  if (
    json.thinking &&
    lastAssistant &&
    !['thinking', 'redacted_thinking'].includes(lastAssistant.content[0]?.type ?? '')
  ) {
    return 'Expected `thinking` or `redacted_thinking`, but found another block. When `thinking` is enabled, a final `assistant` message must start with a thinking block.';
  }
  return undefined;
}

/** Splits text in pieces as the API streams it (a few characters each, at least two pieces when it can). */
export function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  return Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
    text.slice(index * size, (index + 1) * size),
  );
}

interface StreamedMessage {
  readonly content: readonly Record<string, unknown>[];
  readonly stop_reason: string;
  readonly usage: Record<string, number>;
  readonly [field: string]: unknown;
}

/** The events the Messages API streams for `message`. */
export function messageEvents(message: StreamedMessage): { event: string; data: Record<string, unknown> }[] {
  const event = (type: string, data: Record<string, unknown> = {}) => ({ event: type, data: { type, ...data } });
  const { output_tokens: outputTokens, ...inputCounts } = message.usage;
  const events = [
    event('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { ...inputCounts, output_tokens: 1 } },
    }),
    event('ping'),
  ];
  for (const [index, block] of message.content.entries()) {
    const delta = (data: Record<string, unknown>) => event('content_block_delta', { index, delta: data });
    if (block['type'] === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      events.push(...pieces(String(block['text'])).map((text) => delta({ type: 'text_delta', text })));
    } else if (block['type'] === 'thinking') {
      events.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
      events.push(...pieces(String(block['thinking'])).map((thinking) => delta({ type: 'thinking_delta', thinking })));
      events.push(delta({ type: 'signature_delta', signature: block['signature'] }));
    } else if (block['type'] === 'tool_use') {
      events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      events.push(
        ...pieces(JSON.stringify(block['input'])).map((partial_json) =>
          delta({ type: 'input_json_delta', partial_json }),
        ),
      );
    } else events.push(event('content_block_start', { index, content_block: block }));
    events.push(event('content_block_stop', { index }));
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
  );
  events.push(event('message_stop'));
  return events;
}

function stream(response: ServerResponse, answer: AnthropicReply, held: (() => void)[]): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': 'req_test',
  });
  const events = messageEvents(answer.body as StreamedMessage);
  const write = (some: typeof events) => {
    for (const { event, data } of some) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  write(answer.interrupt ? events.slice(0, answer.interrupt.after) : events);
  if (answer.interrupt?.with === 'hold') {
    held.push(() => {
      write(events.slice(answer.interrupt!.after));
      response.end();
    });
  } else if (answer.interrupt?.with === 'cut')
    response.socket?.end(); // after what was written, without the last chunk
  else if (answer.interrupt?.with === 'error') {
    response.end(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    );
  } else if (!answer.interrupt) response.end();
}

function send(response: ServerResponse, answer: AnthropicReply): void {
  response.writeHead(answer.status, {
    'content-type': 'application/json',
    'request-id': 'req_test',
    ...answer.headers,
  });
  response.end(JSON.stringify(answer.body));
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: AnthropicRequest[] = [];
  const answers: AnthropicAnswer[] = [];
  const held: (() => void)[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      // The path as the API routes it: Claude Code adds ?beta=true.
      if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://localhost').pathname !== '/v1/messages')
        return send(response, apiError(404, 'not_found_error', `Not found: ${request.url}`));
      const json = JSON.parse(body) as AnthropicRequest['json'];
      requests.push({ headers: request.headers, body, json });
      const key = request.headers['x-api-key'];
      if (key !== ANTHROPIC_API_KEY)
        return send(response, apiError(401, 'authentication_error', `invalid x-api-key: ${key}`));
      if (request.headers['anthropic-version'] !== '2023-06-01')
        return send(response, apiError(400, 'invalid_request_error', 'anthropic-version: header is required'));
      const refused = refusal(json);
      if (refused) return send(response, apiError(400, 'invalid_request_error', refused));
      const answer = answers.shift() ?? apiError(500, 'api_error', 'no answer scripted');
      if (answer === 'hold') return;
      if (json['stream'] === true && answer.status === 200) stream(response, answer, held);
      else send(response, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer: (...next) => answers.push(...next),
    resume: () => {
      for (const rest of held.splice(0)) rest();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
