// A loopback HTTP server that answers a provider's JSON API with scripted answers and records every request
// byte for byte: the real @ai-sdk/anthropic and @ai-sdk/openai packages talk to it through their baseURL. The
// answers are the providers' documented JSON shapes (or server-sent events, for a streamed answer), written in the
// tests that script them.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as sent. */
  readonly body: string;
  /** The body parsed, read field by field in the tests. */
  readonly json: any;
}

/** One server-sent event: `event: <event>` and `data: <JSON of data>`. */
export interface ScriptedEvent {
  readonly event: string;
  readonly data: unknown;
}

/** A JSON `body`, or `events` sent as `text/event-stream` (the streaming answer of the provider's API). */
export type ScriptedAnswer =
  | { readonly status?: number; readonly body: unknown; readonly headers?: Record<string, string> }
  | {
      readonly events: readonly ScriptedEvent[];
      readonly headers?: Record<string, string> /** Leave the answer unfinished, as a provider still writing. */;
      readonly open?: boolean;
    };

export interface FakeProviderApi {
  /** `http://127.0.0.1:port/v1`, what tests pass as `baseURL`. */
  readonly baseURL: string;
  readonly requests: ProviderRequest[];
  /**
   * Answers, in order, for the next requests; a request with none scripted gets a 500. A function answers as the
   * request asks (e.g. streamed when its body says `stream: true`, as the real API does).
   */
  script(...answers: (ScriptedAnswer | ((request: ProviderRequest) => ScriptedAnswer))[]): void;
  close(): Promise<void>;
}

export async function startFakeProviderApi(): Promise<FakeProviderApi> {
  const requests: ProviderRequest[] = [];
  const answers: (ScriptedAnswer | ((request: ProviderRequest) => ScriptedAnswer))[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: ProviderRequest = {
        path: request.url ?? '',
        headers: request.headers,
        body,
        json: body === '' ? undefined : JSON.parse(body),
      };
      requests.push(recorded);
      const next = answers.shift() ?? {
        status: 500,
        body: { type: 'error', error: { type: 'api_error', message: 'no answer scripted' } },
      };
      const answer = typeof next === 'function' ? next(recorded) : next;
      if ('events' in answer) {
        response.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          ...answer.headers,
        });
        for (const { event, data } of answer.events)
          response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        if (!answer.open) response.end();
        return;
      }
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (...next) => answers.push(...next),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
