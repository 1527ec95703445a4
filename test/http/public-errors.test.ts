// What others read of a failed run (GET /runs/:id, the run.failed webhook) holds
// neither a URL nor what a model provider wrote: the operator's onError gets those.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore, createRuntime, type Model } from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { createWebhookNotifier } from 'countersign/webhooks';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { testAgent } from '../support/test-kit.js';

const TOKEN = 'test-bearer-token-0123456789';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const API_KEY = 'sk-live-KEY0123456789abcdef';
/** A provider's error as SDKs throw it: the key echoed in the body, the endpoint (with a key in its query) in the message. */
const providerError = () =>
  Object.assign(
    new Error(
      `401 Incorrect API key provided: ${API_KEY}. POST https://llm.internal.example/v1/chat/completions?api-key=${API_KEY} failed`,
    ),
    {
      status: 401,
    },
  );

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('a run whose model call failed', () => {
  it('shows neither the provider body nor a URL in GET /runs/:id or the run.failed webhook; onError gets the full error', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    closers.push(() => receiver.close());
    const notifier = createWebhookNotifier({ url: receiver.url, secret: SECRET, events: ['run.failed'] });
    const model: Model = {
      generate: async () => {
        throw providerError();
      },
    };
    const agent = testAgent({ model, tools: [] });
    const reported: { error: unknown; operation: string; runId?: string }[] = [];
    const runtime = createRuntime({
      agents: [agent],
      store: createMemoryStore(),
      notifier,
      onError: (error, context) => reported.push({ error, ...context }),
    });
    const server: ServeHandle = await serve(createApprovalApp(runtime, { bearerToken: TOKEN }), { port: 0 });
    closers.push(() => server.close());

    const started = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: agent.name, input: 'hello' }),
    });
    const { run } = (await started.json()) as { run: { runId: string } };
    const shown = await fetch(`${server.url}/runs/${run.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await shown.text();
    expect(JSON.parse(body)).toMatchObject({
      status: 'failed',
      error: { code: 'model_error', message: 'The model call failed: HTTP 401 (authentication).' },
    });
    expect(body).not.toContain(API_KEY);
    expect(body).not.toContain('llm.internal');

    await notifier.flush();
    expect(receiver.deliveries).toHaveLength(1);
    expect(JSON.parse(receiver.deliveries[0]!.body)).toMatchObject({
      type: 'run.failed',
      data: { error: { message: 'The model call failed: HTTP 401 (authentication).' } },
    });
    expect(receiver.deliveries[0]!.body).not.toContain(API_KEY);
    expect(receiver.deliveries[0]!.body).not.toContain('llm.internal');

    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ operation: 'model', runId: run.runId });
    expect((reported[0]!.error as Error).message).toContain(API_KEY);
  });

  it('says a timeout or a refused connection without quoting the error, and hands agent.execute callers the error through onError', async () => {
    const refused = Object.assign(new TypeError('fetch failed https://user:pw@llm.internal.example/v1'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:443'), { code: 'ECONNREFUSED' }),
    });
    const timeout = new DOMException(
      `The operation to https://llm.internal.example/?key=${API_KEY} was aborted due to timeout`,
      'TimeoutError',
    );
    const plain = new Error(`upstream said: ${API_KEY}`);
    const cases: [unknown, string][] = [
      [refused, 'The model call failed: the provider could not be reached (ECONNREFUSED).'],
      [timeout, 'The model call failed: it timed out.'],
      [plain, 'The model call failed; the details went to the operator (onError), not here.'],
    ];
    for (const [thrown, text] of cases) {
      const agent = testAgent({ tools: [], model: { generate: () => Promise.reject(thrown) } });
      const seen: unknown[] = [];
      const failed = await agent.execute({ input: 'hello' }, { onError: (error) => seen.push(error) });
      expect(failed.error).toEqual({ code: 'model_error', message: text });
      expect(seen).toEqual([thrown]);
    }
  });
});
