// The request routes under attack: every refusal is a problem answer and records nothing. Missing or forged
// credentials, forged, stale and replayed signatures, signed cancels replayed to another request, oversized bodies,
// prototype keys, out-of-range waits, console sessions that may only read, and ids of runs that are no request.
import { describe, expect, it } from 'vitest';
import { bearer, harness, json, NOW_MS, signed, startPaused, stateOf, TOKEN, type Harness } from './harness.js';
import { closeServedAfterEach, send, served } from './request-kit.js';
import { inboxLinkUrl } from '../support/link-urls.js';

closeServedAfterEach();

const OTHER_SECRET = 'whsec_c2lnbmVkIGJ5IHNvbWVib2R5IGVsc2UhIQ==';

async function read(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Asks on the app (bearer token) and returns the request's id and approval id. */
async function asked(h: Harness, body: object = { tool: 'deploy', args: { service: 'billing' } }) {
  const answer = await read(await h.app.request('/approvals', json(body)));
  expect(answer.status).toBe(201);
  return { id: answer.body['id'] as string, approvalId: answer.body['request'].approvalId as string };
}

const pendingCount = async (h: Harness) => (await h.runtime.pending()).items.length;

const post = (h: Harness, path: string, text: string, headers: Record<string, string>) =>
  h.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });

describe('the request routes refuse', () => {
  it('a missing or forged bearer token on every route (401), recording nothing', async () => {
    const h = harness();
    const { id } = await asked(h);
    const forged = bearer('forged-token-0123456789abcdef');
    const attempts = [
      await h.app.request('/approvals', json({ tool: 'deploy', args: {} }, {})),
      await h.app.request('/approvals', json({ tool: 'deploy', args: {} }, forged)),
      await h.app.request(`/approvals/${id}`),
      await h.app.request(`/approvals/${id}?waitMs=1000`, { headers: forged }),
      await h.app.request(`/approvals/${id}/cancel`, json({}, {})),
      await h.app.request(`/approvals/${id}/cancel`, json({}, forged)),
    ];
    for (const res of attempts) expect(await read(res)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await read(await h.app.request(`/approvals/${id}`, { headers: bearer() }))).toMatchObject({
      status: 200,
      body: { status: 'pending' },
    });
    expect(await pendingCount(h)).toBe(1);
  });

  it('a forged or stale signature, and a webhook-id replayed with another body', async () => {
    const h = harness();
    const text = JSON.stringify({ tool: 'rotate_keys', args: { env: 'prod' } });
    const forged = await read(await post(h, '/approvals', text, signed(text, { secret: OTHER_SECRET })));
    expect(forged).toMatchObject({ status: 401, body: { code: 'invalid_webhook_signature', reason: 'bad_signature' } });
    const stale = await read(await post(h, '/approvals', text, signed(text, { at: NOW_MS - 600_000 })));
    expect(stale).toMatchObject({ status: 401, body: { reason: 'stale_timestamp' } });
    expect(await pendingCount(h)).toBe(0);

    const first = await read(await post(h, '/approvals', text, signed(text, { id: 'msg_ask_1' })));
    expect(first.status).toBe(201);
    const other = JSON.stringify({ tool: 'rotate_keys', args: { env: 'staging' } });
    const reused = await read(await post(h, '/approvals', other, signed(other, { id: 'msg_ask_1' })));
    expect(reused).toMatchObject({ status: 409, body: { code: 'webhook_id_reused' } });
    expect(await pendingCount(h)).toBe(1);
  });

  it('a signed cancel that names no request, or another request than the URL', async () => {
    const h = harness();
    const a = await asked(h, { tool: 'deploy', args: { service: 'a' } });
    const b = await asked(h, { tool: 'deploy', args: { service: 'b' } });
    const forA = JSON.stringify({ requestId: a.id, reason: 'withdrawn' });
    const replayed = await read(await post(h, `/approvals/${b.id}/cancel`, forA, signed(forA)));
    expect(replayed).toMatchObject({ status: 400, body: { code: 'target_mismatch', requestId: b.id } });
    const unnamed = JSON.stringify({ reason: 'withdrawn' });
    expect(await read(await post(h, `/approvals/${b.id}/cancel`, unnamed, signed(unnamed)))).toMatchObject({
      status: 400,
      body: { code: 'target_mismatch' },
    });
    expect(await pendingCount(h)).toBe(2);
    const named = JSON.stringify({ requestId: b.id });
    expect(await read(await post(h, `/approvals/${b.id}/cancel`, named, signed(named)))).toMatchObject({
      status: 200,
      body: { id: b.id, status: 'cancelled' },
    });
  });

  it('a body over the limit (413), declared or not, over a socket and in process', async () => {
    const { h, base } = await served({ app: { maxBodyBytes: 1024 } });
    const big = JSON.stringify({ tool: 'deploy', args: { notes: 'x'.repeat(2000) } });
    const declared = await send(`${base}/approvals`, json(JSON.parse(big)));
    expect(declared).toMatchObject({ status: 413, body: { code: 'body_too_large', maxBytes: 1024 } });
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await h.app.request('/approvals', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: streamed,
      duplex: 'half',
    } as RequestInit);
    expect(await read(chunked)).toMatchObject({ status: 413, body: { code: 'body_too_large' } });
    expect(await pendingCount(h)).toBe(0);
  });

  it('prototype keys, bad fields and unknown keys in an ask (400 naming the field), recording nothing', async () => {
    const h = harness();
    const proto = await read(await post(h, '/approvals', '{"tool":"x","args":{"__proto__":{"admin":true}}}', bearer()));
    expect(proto).toMatchObject({
      status: 400,
      body: { code: 'invalid_body', detail: expect.stringMatching(/__proto__/) },
    });
    const refusals: [object, string][] = [
      [{ tool: 'rm -rf', args: {} }, 'tool'],
      [{ tool: 'x', args: [] }, 'args'],
      [{ tool: 'x', args: {}, expiresInMs: 10 }, 'expiresInMs'],
      [{ tool: 'x', args: {}, approvers: [] }, 'approvers'],
      [{ tool: 'x', args: {}, approvals: 0 }, 'approvals'],
      [{ tool: 'x', args: {}, sessionId: 'a/b' }, 'sessionId'],
      [{ tool: 'x', args: {}, key: '' }, 'key'],
    ];
    for (const [body, field] of refusals) {
      const answer = await read(await h.app.request('/approvals', json(body)));
      expect(answer, field).toMatchObject({ status: 400, body: { code: 'invalid_body', issues: [{ path: field }] } });
      expect(answer.body['detail']).toContain(field);
    }
    const unknown = await read(await h.app.request('/approvals', json({ tool: 'x', args: {}, surprise: 1 })));
    expect(unknown).toMatchObject({
      status: 400,
      body: { code: 'invalid_body', detail: expect.stringMatching(/surprise/) },
    });
    expect((await read(await post(h, '/approvals', '{"tool":', bearer()))).status).toBe(400);
    expect(await pendingCount(h)).toBe(0);
  });

  it('a waitMs out of range or not a whole number (400 invalid_query)', async () => {
    const h = harness();
    const { id } = await asked(h);
    for (const waitMs of ['-1', '60001', '1.5', 'abc', '1e9', 'Infinity']) {
      expect(
        await read(await h.app.request(`/approvals/${id}?waitMs=${waitMs}`, { headers: bearer() })),
        waitMs,
      ).toMatchObject({
        status: 400,
        body: { code: 'invalid_query', issues: [{ path: 'waitMs' }] },
      });
    }
    await h.app.request(`/approvals/${id}/cancel`, json({}));
    // The longest wait allowed, on a request already ended: answered at once.
    expect(await read(await h.app.request(`/approvals/${id}?waitMs=60000`, { headers: bearer() }))).toMatchObject({
      status: 200,
      body: { status: 'cancelled' },
    });
  });

  it('a console session asking or cancelling, and an inbox session reading a request', async () => {
    const h = harness();
    const { id } = await asked(h);
    const signIn = async (fields: Record<string, string>) => {
      const response = await h.app.request('/console/session', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      expect(response.status).toBe(303);
      return response.headers.get('set-cookie')!.split(';')[0]!;
    };
    const inbox = await signIn({ inbox: (await inboxLinkUrl(h.runtime, 'carol')).url });
    const person = await signIn({ token: TOKEN, name: 'alice' });
    for (const cookie of [inbox, person]) {
      const asking = await h.app.request('/approvals', json({ tool: 'deploy', args: { service: 'x' } }, { cookie }));
      expect(await read(asking)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
      const cancelling = await h.app.request(`/approvals/${id}/cancel`, json({}, { cookie }));
      expect(await read(cancelling)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    }
    expect(await read(await h.app.request(`/approvals/${id}`, { headers: { cookie: inbox } }))).toMatchObject({
      status: 403,
      body: { code: 'inbox_session_not_allowed' },
    });
    expect(await read(await h.app.request(`/approvals/${id}`, { headers: { cookie: person } }))).toMatchObject({
      status: 200,
      body: { status: 'pending' },
    });
    expect(await pendingCount(h)).toBe(1);
  });

  it('an id of a run that is no request (404 not_a_request) and an unknown id (404), changing nothing', async () => {
    const h = harness();
    const { runId } = await startPaused(h);
    const before = await stateOf(h, runId);
    for (const res of [
      await h.app.request(`/approvals/${runId}`, { headers: bearer() }),
      await h.app.request(`/approvals/${runId}?waitMs=30000`, { headers: bearer() }),
      await h.app.request(`/approvals/${runId}/cancel`, json({ reason: 'not mine' })),
    ]) {
      const answer = await read(res);
      expect(answer).toMatchObject({ status: 404, body: { code: 'not_a_request', requestId: runId } });
      expect(answer.body['detail']).toMatch(/GET \/runs/);
    }
    expect(await stateOf(h, runId)).toBe(before);
    expect(await read(await h.app.request('/approvals/req_missing', { headers: bearer() }))).toMatchObject({
      status: 404,
      body: { code: 'run_not_found' },
    });
    expect(await read(await h.app.request('/approvals/req_missing/cancel', json({})))).toMatchObject({
      status: 404,
      body: { code: 'run_not_found' },
    });
    expect(h.errors).toEqual([]);
  });
});
