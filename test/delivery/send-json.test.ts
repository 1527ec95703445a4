import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, sendJson } from '../../src/kit/delivery/index.js';
import {
  startReceiver,
  type ReceivedDelivery,
  type ReceiverAnswer,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
async function receiver(answer: (delivery: ReceivedDelivery) => ReceiverAnswer): Promise<WebhookReceiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** A URL whose path and query hold secrets, as a Slack webhook's does. */
const secretUrl = (base: string) => `${base}/T0/path-secret-81x?token=query-secret-42y`;
const options = { timeoutMs: 5_000, service: 'The service' };

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  const delivery = error as DeliveryError;
  for (const text of [delivery.message, delivery.reason]) {
    expect(text).not.toContain('path-secret-81x');
    expect(text).not.toContain('query-secret-42y');
  }
  return delivery;
}

describe('sendJson', () => {
  it('POSTs the body as JSON and resolves with a 2xx answer', async () => {
    const target = await receiver(() => ({ status: 201, body: '{"ok":true}' }));
    const answer = await sendJson(fetch, target.url, { ...options, body: { text: 'hi' } });
    expect(answer.status).toBe(201);
    expect(answer.text).toBe('{"ok":true}');
    expect(target.deliveries[0]!.body).toBe('{"text":"hi"}');
    expect(target.deliveries[0]!.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('sends a raw body byte for byte', async () => {
    const target = await receiver(() => 204);
    await sendJson(fetch, target.url, {
      ...options,
      rawBody: '{ "signed" : 1 }',
      headers: { 'content-type': 'application/json' },
    });
    expect(target.deliveries[0]!.body).toBe('{ "signed" : 1 }');
    expect(target.deliveries[0]!.headers['content-type']).toBe('application/json');
  });

  it('throws a retryable error for 429 carrying its Retry-After, and for 503', async () => {
    const answers: ReceiverAnswer[] = [
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 503, body: 'down' },
    ];
    const target = await receiver((delivery) => answers[delivery.seq - 1]!);
    const limited = await failure(sendJson(fetch, secretUrl(target.url), options));
    expect(limited).toMatchObject({
      retryable: true,
      status: 429,
      retryAfterMs: 3000,
      reason: 'HTTP 429 (rate limited)',
    });
    const down = await failure(sendJson(fetch, secretUrl(target.url), options));
    expect(down).toMatchObject({
      retryable: true,
      status: 503,
      retryAfterMs: undefined,
      message: 'The service answered HTTP 503: down',
      reason: 'HTTP 503: down',
    });
  });

  it("waits a Telegram refusal's parameters.retry_after from its JSON body", async () => {
    const body = JSON.stringify({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    });
    const target = await receiver(() => ({ status: 429, body }));
    const error = await failure(sendJson(fetch, secretUrl(target.url), options));
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000 });
  });

  it("prefers a Discord 429's JSON retry_after, with fractions, to its whole-second Retry-After header", async () => {
    const body = JSON.stringify({ message: 'You are being rate limited.', retry_after: 1.25, global: false });
    const target = await receiver(() => ({ status: 429, headers: { 'retry-after': '2' }, body }));
    const error = await failure(sendJson(fetch, secretUrl(target.url), options));
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 1250 });
  });

  it('falls back to the Retry-After header when the JSON body names no usable wait', async () => {
    const bodies = [JSON.stringify({ retry_after: 'soon' }), JSON.stringify({ parameters: null }), 'not json'];
    const target = await receiver((delivery) => ({
      status: 429,
      headers: { 'retry-after': '4' },
      body: bodies[delivery.seq - 1]!,
    }));
    for (const _ of bodies) {
      expect(await failure(sendJson(fetch, secretUrl(target.url), options))).toMatchObject({ retryAfterMs: 4000 });
    }
  });

  it('throws a final error for a 404, quoting the body with any URL in it cut to its host', async () => {
    const target = await receiver((delivery) => ({
      status: 404,
      body: `no hook at http://127.0.0.1${delivery.headers['x-echo'] ?? ''}`,
    }));
    const error = await failure(
      sendJson(fetch, secretUrl(target.url), {
        ...options,
        headers: { 'x-echo': '/T0/path-secret-81x?token=query-secret-42y' },
      }),
    );
    expect(error).toMatchObject({ retryable: false, status: 404, reason: 'HTTP 404: no hook at 127.0.0.1/…' });
  });

  it('does not follow a redirect, and names only the host it pointed to', async () => {
    const target = await receiver(() => ({
      status: 302,
      headers: { location: 'https://elsewhere.example/path-secret-81x?token=query-secret-42y' },
    }));
    const error = await failure(sendJson(fetch, secretUrl(target.url), options));
    expect(target.deliveries).toHaveLength(1);
    expect(error).toMatchObject({
      retryable: false,
      status: 302,
      reason: 'HTTP 302 (redirect to elsewhere.example/… not followed; configure the final URL)',
    });
  });

  it('abandons a try that gets no answer within timeoutMs, as retryable', async () => {
    const target = await receiver(() => 'hang');
    const error = await failure(sendJson(fetch, secretUrl(target.url), { ...options, timeoutMs: 50 }));
    expect(error).toMatchObject({
      retryable: true,
      status: undefined,
      message: 'The service timed out after 50 ms',
      reason: 'timed out after 50 ms',
    });
  });

  it('names a refused connection by its code, as retryable', async () => {
    const closed = await startReceiver();
    await closed.close();
    const error = await failure(sendJson(fetch, secretUrl(closed.url), options));
    expect(error).toMatchObject({
      retryable: true,
      message: 'The service could not be reached: ECONNREFUSED',
      reason: 'ECONNREFUSED',
    });
  });
});
