// A fake OpenAI Responses API on loopback: POST /v1/responses with a JSON body, answered with scripted Response
// objects (or errors) as OpenAI writes them. It checks what OpenAI checks on the way in: the bearer key (401 that
// echoes the key it got, as OpenAI does), a previous_response_id it stored, a function_call_output answering a call
// in the conversation, a reasoning item sent back with store false carrying its encrypted content. Every request is
// recorded with its raw body. A request with `stream: true` gets the same Response as OpenAI streams it: server-sent
// events response.created, .in_progress, per output item output_item.added, its content parts, text, reasoning
// summary and argument deltas in pieces with their .done events, output_item.done, then response.completed (or
// .incomplete, .failed) carrying the whole Response; or, with `streamError`, an `error` event after some events.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResponsesRequest {
  readonly headers: IncomingHttpHeaders;
  /** The body as sent, byte for byte. */
  readonly raw: string;
  readonly json: Record<string, any>;
}

/** A scripted answer: output items (made into a whole Response object), or an HTTP error. */
export type ScriptedAnswer =
  | {
      readonly output: readonly Record<string, unknown>[];
      readonly usage?: Record<string, unknown>;
      readonly status?: string;
      readonly incomplete?: string;
      /** Streamed: an `error` event after this many events, in place of the rest. */
      readonly streamErrorAfter?: number;
    }
  | { readonly status: number; readonly body: unknown; readonly headers?: Record<string, string> };

export interface FakeResponses {
  /** `http://127.0.0.1:port/v1`, what tests pass as `baseUrl`. */
  readonly baseUrl: string;
  readonly requests: ResponsesRequest[];
  /** Queues answers for the next requests. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

export const OPENAI_KEY = 'sk-proj-TEST0123456789abcdefghijklmnop';

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
) => ({
  status,
  body: { error: { message, type, param, code } },
});

/** Why OpenAI would refuse this body, if it would. */
function refusal(
  json: Record<string, any>,
  stored: ReadonlySet<string>,
): { status: number; body: unknown } | undefined {
  if (json['previous_response_id'] !== undefined && !stored.has(json['previous_response_id'])) {
    return error(
      400,
      `Previous response with id '${json['previous_response_id']}' not found.`,
      'invalid_request_error',
      'previous_response_not_found',
      'previous_response_id',
    );
  }
  const input: Record<string, any>[] = Array.isArray(json['input']) ? json['input'] : [];
  const calls = new Set(input.filter((item) => item['type'] === 'function_call').map((item) => item['call_id']));
  for (const item of input) {
    if (
      item['type'] === 'function_call_output' &&
      !calls.has(item['call_id']) &&
      json['previous_response_id'] === undefined
    ) {
      return error(
        400,
        `No tool call found for function call output with call_id ${item['call_id']}.`,
        'invalid_request_error',
        null,
        'input',
      );
    }
    if (item['type'] === 'reasoning' && json['store'] === false && typeof item['encrypted_content'] !== 'string') {
      return error(
        404,
        `Item with id '${item['id']}' not found. Items are not persisted when \`store\` is set to false.`,
        'invalid_request_error',
        null,
        'input',
      );
    }
  }
  return undefined;
}

/** Splits text in pieces as the API streams it (at least two when it can). */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  return Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
    text.slice(index * size, (index + 1) * size),
  );
}

/** The events (type and fields, sequence numbers left out) OpenAI streams while producing one output item. */
function itemEvents(item: Record<string, any>, output_index: number): Record<string, unknown>[] {
  const item_id = item['id'];
  const events: Record<string, unknown>[] = [];
  if (item['type'] === 'message') {
    events.push({
      type: 'response.output_item.added',
      output_index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    for (const [content_index, part] of (item['content'] as Record<string, any>[]).entries()) {
      const kind = part['type'] === 'refusal' ? 'refusal' : 'output_text';
      const text: string = part['type'] === 'refusal' ? part['refusal'] : part['text'];
      const at = { item_id, output_index, content_index };
      events.push({
        type: 'response.content_part.added',
        ...at,
        part: { ...part, [kind === 'refusal' ? 'refusal' : 'text']: '' },
      });
      events.push(
        ...pieces(text).map((delta) => ({
          type: `response.${kind}.delta`,
          ...at,
          delta,
          ...(kind === 'output_text' ? { logprobs: [] } : {}),
        })),
      );
      events.push({ type: `response.${kind}.done`, ...at, [kind === 'refusal' ? 'refusal' : 'text']: text });
      events.push({ type: 'response.content_part.done', ...at, part });
    }
  } else if (item['type'] === 'reasoning') {
    events.push({
      type: 'response.output_item.added',
      output_index,
      item: { ...item, summary: [], encrypted_content: null },
    });
    for (const [summary_index, summary] of ((item['summary'] ?? []) as Record<string, any>[]).entries()) {
      const at = { item_id, output_index, summary_index };
      events.push({ type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } });
      events.push(
        ...pieces(summary['text']).map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...at, delta })),
      );
      events.push({ type: 'response.reasoning_summary_text.done', ...at, text: summary['text'] });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, part: summary });
    }
  } else if (item['type'] === 'function_call') {
    events.push({
      type: 'response.output_item.added',
      output_index,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    events.push(
      ...pieces(item['arguments']).map((delta) => ({
        type: 'response.function_call_arguments.delta',
        item_id,
        output_index,
        delta,
      })),
    );
    events.push({ type: 'response.function_call_arguments.done', item_id, output_index, arguments: item['arguments'] });
  } else events.push({ type: 'response.output_item.added', output_index, item });
  events.push({ type: 'response.output_item.done', output_index, item });
  return events;
}

/** The events OpenAI streams for `response`, numbered, cut short by an `error` event after `errorAfter` when given. */
function responseEvents(response: Record<string, any>, errorAfter: number | undefined): Record<string, unknown>[] {
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  const final =
    response['status'] === 'completed'
      ? 'response.completed'
      : response['status'] === 'failed'
        ? 'response.failed'
        : 'response.incomplete';
  const events = [
    { type: 'response.created', response: pending },
    { type: 'response.in_progress', response: pending },
    ...(response['output'] as Record<string, any>[]).flatMap(itemEvents),
    { type: final, response },
  ];
  const sent =
    errorAfter === undefined
      ? events
      : [
          ...events.slice(0, errorAfter),
          {
            type: 'error',
            code: 'server_error',
            message: 'The server had an error while processing your request.',
            param: null,
          },
        ];
  return sent.map((event, sequence_number) => ({ ...event, sequence_number }));
}

export async function startFakeResponses(): Promise<FakeResponses> {
  const requests: ResponsesRequest[] = [];
  const answers: ScriptedAnswer[] = [];
  const stored = new Set<string>();
  let counter = 0;
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const json = JSON.parse(raw);
      requests.push({ headers: request.headers, raw, json });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(body));
      };
      const key = /^Bearer (.*)$/.exec(request.headers.authorization ?? '')?.[1];
      if (request.method !== 'POST' || request.url !== '/v1/responses')
        return send(404, error(404, `Invalid URL (${request.method} ${request.url})`, 'invalid_request_error').body);
      if (key !== OPENAI_KEY) {
        return send(
          401,
          error(
            401,
            `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            'invalid_request_error',
            'invalid_api_key',
          ).body,
        );
      }
      const answer = answers.shift() ?? { status: 500, body: error(500, 'no answer scripted', 'server_error').body };
      if (!('output' in answer)) return send(answer.status, answer.body, answer.headers);
      const refused = refusal(json, stored);
      if (refused) return send(refused.status, refused.body);
      counter += 1;
      const id = `resp_${counter.toString().padStart(4, '0')}`;
      if (json['store'] !== false) stored.add(id);
      const body = {
        id,
        object: 'response',
        created_at: 1_764_000_000 + counter,
        status: answer.status ?? (answer.incomplete ? 'incomplete' : 'completed'),
        error: null,
        incomplete_details: answer.incomplete ? { reason: answer.incomplete } : null,
        instructions: json['instructions'] ?? null,
        model: `${json['model']}-2026-01-01`,
        output: answer.output,
        parallel_tool_calls: true,
        previous_response_id: json['previous_response_id'] ?? null,
        reasoning: { effort: json['reasoning']?.effort ?? null, summary: json['reasoning']?.summary ?? null },
        store: json['store'] ?? true,
        tools: json['tools'] ?? [],
        usage: answer.usage ?? {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      };
      if (json['stream'] !== true) return send(200, body);
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const event of responseEvents(body, answer.streamErrorAfter))
        response.write(`event: ${event['type']}\ndata: ${JSON.stringify(event)}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (...more) => answers.push(...more),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
