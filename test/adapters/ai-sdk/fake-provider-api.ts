// A loopback HTTP server that answers a provider's JSON API with scripted answers and records every request
// byte for byte: the real @ai-sdk/anthropic and @ai-sdk/openai packages talk to it through their baseURL. The
// answers are the providers' documented JSON shapes, written in the tests that script them.
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

export interface ScriptedAnswer {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface FakeProviderApi {
  /** `http://127.0.0.1:port/v1`, what tests pass as `baseURL`. */
  readonly baseURL: string;
  readonly requests: ProviderRequest[];
  /** Answers, in order, for the next requests; a request with none scripted gets a 500. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

export async function startFakeProviderApi(): Promise<FakeProviderApi> {
  const requests: ProviderRequest[] = [];
  const answers: ScriptedAnswer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: request.url ?? '', headers: request.headers, body, json: body === '' ? undefined : JSON.parse(body) });
      const answer = answers.shift() ?? { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'no answer scripted' } } };
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (...next) => answers.push(...next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
