// Channels mounted on the approval app: each channel's Fetch handler at its path, reached without the app's
// credentials (it checks its own), its answer passed through with the app's headers, its background work handed
// to the platform's waitUntil where there is one; paths that clash are refused at creation.
import { describe, expect, it } from 'vitest';
import type { ExecutionContext } from 'hono';
import { ConfigError } from 'countersign';
import type { ChannelRoute } from 'countersign/channels';
import { harness, TOKEN } from './harness.js';

interface Delivery {
  readonly body: string;
  readonly signature: string | null;
  readonly waitUntil: ((work: Promise<unknown>) => void) | undefined;
}

/** A channel that takes any request, hands a piece of background work to `waitUntil`, and answers 202 with its own header. */
function fakeChannel(
  path = '/chat/actions',
  answer: (request: Request) => Promise<Response> | Response = () =>
    new Response('{"ok":true}', { status: 202, headers: { 'content-type': 'application/json', 'x-chat': 'seen' } }),
) {
  const deliveries: Delivery[] = [];
  const background: Promise<unknown>[] = [];
  const route: ChannelRoute = {
    method: 'POST',
    path,
    async fetch(request, context) {
      deliveries.push({
        body: await request.text(),
        signature: request.headers.get('x-chat-signature'),
        waitUntil: context?.waitUntil,
      });
      const work = Promise.resolve('posted the outcome');
      background.push(work);
      context?.waitUntil?.(work);
      return answer(request);
    },
  };
  return { route, deliveries, background };
}

const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-chat-signature': 'v1=abc', ...headers },
  body,
});

/** An execution context like a serverless platform's, keeping what it was asked to wait for. */
function platformContext(): ExecutionContext & { readonly waited: Promise<unknown>[] } {
  const waited: Promise<unknown>[] = [];
  return { waited, waitUntil: (work) => void waited.push(work), passThroughOnException: () => undefined, props: {} };
}

describe('createApprovalApp({ channels })', () => {
  it("mounts a channel at its path, reached without a bearer token, and passes its answer through with the app's security headers", async () => {
    const channel = fakeChannel();
    const h = harness({ app: { channels: [channel.route] } });
    const res = await h.app.request('/chat/actions', post('{"click":"approve"}'));
    expect(res.status).toBe(202);
    expect(res.headers.get('x-chat')).toBe('seen');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({ ok: true });
    expect(channel.deliveries).toEqual([{ body: '{"click":"approve"}', signature: 'v1=abc', waitUntil: undefined }]);
    // The app's own routes still want their credentials.
    expect((await h.app.request('/approvals')).status).toBe(401);
    expect((await h.app.request('/approvals', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it("hands the platform's waitUntil to the channel when there is one, and none on Node", async () => {
    const channel = fakeChannel();
    const h = harness({ app: { channels: [channel.route] } });
    const platform = platformContext();
    expect(
      (await h.app.fetch(new Request('http://approvals.test/chat/actions', post('{}')), {}, platform)).status,
    ).toBe(202);
    expect(platform.waited).toEqual([channel.background[0]]);
    expect((await h.app.request('/chat/actions', post('{}'))).status).toBe(202);
    expect(channel.deliveries.map((delivery) => delivery.waitUntil === undefined)).toEqual([false, true]);
  });

  it("answers a channel's failure as a bare 500 problem reported to onError, and refuses a declared body over the limit before the channel", async () => {
    const failure = new Error('the channel broke');
    const channel = fakeChannel('/chat/actions', () => Promise.reject(failure));
    const h = harness({ app: { channels: [channel.route], maxBodyBytes: 1024 } });
    const res = await h.app.request('/chat/actions', post('{}'));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await res.json()) as Record<string, unknown>).toMatchObject({ code: 'internal' });
    expect(h.errors).toEqual([failure]);
    const large = await h.app.request('/chat/actions', post('x'.repeat(2048), { 'content-length': '2048' }));
    expect(large.status).toBe(413);
    expect(channel.deliveries).toHaveLength(1);
  });

  it('refuses two channels at one path, a channel at a path the app serves, and a path with parameters, naming the path', () => {
    const cases: [readonly ChannelRoute[], RegExp][] = [
      [
        [fakeChannel('/chat/actions').route, fakeChannel('/chat/actions').route],
        /two channels are mounted at \/chat\/actions/,
      ],
      [[fakeChannel('/runs').route], /channel at \/runs collides with the app's route POST \/runs/],
      [[fakeChannel('/links/abc').route], /channel at \/links\/abc collides with the app's route GET \/links\/:token/],
      [
        [fakeChannel('/openapi.json').route],
        /channel at \/openapi\.json collides with the app's route GET \/openapi\.json/,
      ],
      [[fakeChannel('/chat/:team').route], /channels\.0\.path must be a literal path/],
    ];
    for (const [channels, message] of cases) {
      const attempt = () => harness({ app: { channels } });
      expect(attempt, String(message)).toThrow(ConfigError);
      expect(attempt, String(message)).toThrow(message);
    }
  });

  it('refuses the removed slack and telegram options by name', () => {
    expect(() => harness({ app: { slack: { signingSecret: 'slack-signing-secret-0123456789' } } as never })).toThrow(
      /unknown option slack/,
    );
  });
});
