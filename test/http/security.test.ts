import { describe, expect, it } from 'vitest';
import { ConfigError, createMemoryStore, createRuntime, StoreUnavailableError, type SnapshotStore } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { bearer, harness, NOW_MS, SECRET, signed, startPaused, stateOf, TOKEN } from './harness.js';
import { linkUrls } from '../support/link-urls.js';

type Body = Record<string, any>;
const decisionPath = (runId: string, approvalId: string) => `/runs/${runId}/approvals/${approvalId}`;
const post = (body: string, headers: Record<string, string>) => ({ method: 'POST', headers, body });

describe('Standard Webhooks signatures on writes', () => {
  it('accepts a delivery signed by the standardwebhooks library', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const body = JSON.stringify({ runId, approvalId, approved: true, approvedBy: 'slack:U123' });
    const res = await h.app.request(decisionPath(runId, approvalId), post(body, signed(body)));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body)['status']).toBe('completed');
  });

  it('checks the signature over the bytes that were signed, a leading BOM included', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const body = `\uFEFF${JSON.stringify({ approved: true, approvedBy: 'slack:U123' })}`;
    const res = await h.app.request(decisionPath(runId, approvalId), post(body, signed(body)));
    // Authenticated (not 401); the BOM is then not JSON, and nothing is decided.
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body)['code']).toBe('invalid_body');
    expect(h.executed).toEqual([]);
  });

  it('refuses missing, wrong, truncated, tampered and stale (±301 s) signatures with 401 and changes nothing', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const body = JSON.stringify({ approved: true });
    const good = signed(body);
    const attempts: [string, Record<string, string>, string, string?][] = [
      ['no credentials', { 'content-type': 'application/json' }, 'unauthorized'],
      ['empty signature header', { ...good, 'webhook-signature': '' }, 'invalid_webhook_signature', 'missing_headers'],
      ['no id', { ...good, 'webhook-id': '' }, 'invalid_webhook_signature', 'missing_headers'],
      ['no timestamp', { ...good, 'webhook-timestamp': '' }, 'invalid_webhook_signature', 'missing_headers'],
      [
        'wrong secret',
        signed(body, { secret: `whsec_${Buffer.from('another key of 32 bytes, really!').toString('base64')}` }),
        'invalid_webhook_signature',
        'bad_signature',
      ],
      [
        'truncated',
        { ...good, 'webhook-signature': good['webhook-signature']!.slice(0, -8) },
        'invalid_webhook_signature',
        'bad_signature',
      ],
      [
        'v2 scheme',
        { ...good, 'webhook-signature': good['webhook-signature']!.replace('v1,', 'v2,') },
        'invalid_webhook_signature',
        'bad_signature',
      ],
      ['301 s old', signed(body, { at: NOW_MS - 301_000 }), 'invalid_webhook_signature', 'stale_timestamp'],
      ['301 s ahead', signed(body, { at: NOW_MS + 301_000 }), 'invalid_webhook_signature', 'stale_timestamp'],
      [
        'timestamp not a number',
        { ...good, 'webhook-timestamp': 'soon' },
        'invalid_webhook_signature',
        'bad_timestamp',
      ],
      ['id of another delivery', { ...good, 'webhook-id': 'msg_other' }, 'invalid_webhook_signature', 'bad_signature'],
    ];
    for (const [name, headers, code, reason] of attempts) {
      const res = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
      expect(res.status, name).toBe(401);
      const problem = (await res.json()) as Body;
      expect(problem['code'], name).toBe(code);
      if (reason) expect(problem['reason'], name).toBe(reason);
    }
    const tampered = await h.app.request(
      decisionPath(runId, approvalId),
      post(JSON.stringify({ approved: false }), good),
    );
    expect(tampered.status).toBe(401);
    expect(await stateOf(h, runId)).toBe(before);
    expect(h.executed).toEqual([]);
  });

  it('accepts the edge of the window (±300 s) and any of several secrets while keys rotate', async () => {
    const next = `whsec_${Buffer.from('the next key, thirty-two bytes!!').toString('base64')}`;
    const h = harness({ app: { webhookSecret: [next, SECRET] } });
    const { runId } = await startPaused(h);
    for (const [at, secret] of [
      [NOW_MS - 300_000, SECRET],
      [NOW_MS + 300_000, next],
    ] as const) {
      const body = JSON.stringify({ runId });
      const res = await h.app.request(`/runs/${runId}/cancel`, post(body, signed(body, { at, secret })));
      expect(res.status).toBe(200);
    }
  });

  it('a signature does not open the read routes: they take the bearer token', async () => {
    const h = harness();
    const { runId } = await startPaused(h);
    const res = await h.app.request(`/runs/${runId}`, { headers: signed('') });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  });
});

describe('webhook-id replays', () => {
  it('a replayed decision gets the first answer (same status and body) and changes nothing', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const body = JSON.stringify({ runId, approvalId, approved: true, approvedBy: 'slack:U1' });
    const headers = signed(body, { id: 'msg_decision_1' });
    const first = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    const firstBody = await first.text();
    const after = await stateOf(h, runId);
    const replay = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    expect(replay.status).toBe(first.status);
    expect(await replay.text()).toBe(firstBody);
    expect(replay.headers.get('webhook-replayed')).toBe('true');
    expect(await stateOf(h, runId)).toBe(after);
    expect(h.executed).toEqual(['/tmp/x']);
  });

  it('a replayed start gets the first answer and starts no second run', async () => {
    const h = harness();
    const body = JSON.stringify({ agent: 'files', input: '/tmp/once' });
    const headers = signed(body, { id: 'msg_start_1' });
    const first = await h.app.request('/runs', post(body, headers));
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const replay = await h.app.request('/runs', post(body, headers));
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe(firstBody);
    expect(h.modelCalls()).toBe(1);
    expect((await h.runtime.pending()).items).toHaveLength(1);
  });

  it('a redelivery racing the first one is told to retry, and its retry gets the first answer', async () => {
    const h = harness();
    const body = JSON.stringify({ agent: 'files', input: '/tmp/race' });
    const headers = signed(body, { id: 'msg_race' });
    const [a, b] = await Promise.all([
      h.app.request('/runs', post(body, headers)),
      h.app.request('/runs', post(body, headers)),
    ]);
    // The first claims the webhook-id and is handled; the second, while it is, gets a retryable answer.
    const [first, second] = a.status === 201 ? [a, b] : [b, a];
    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(((await second.json()) as Body)['code']).toBe('webhook_in_progress');
    const firstBody = await first.text();
    const retried = await h.app.request('/runs', post(body, headers));
    expect(retried.status).toBe(201);
    expect(await retried.text()).toBe(firstBody);
    expect(h.modelCalls()).toBe(1);
    expect((await h.runtime.pending()).items).toHaveLength(1);
  });

  it('an error answer is replayed too, but a 5xx is not kept so the sender can retry', async () => {
    const store = createMemoryStore();
    let down = false;
    const flaky: SnapshotStore = {
      ...store,
      load: async (runId) => {
        if (down) throw new StoreUnavailableError('Redis did not answer.');
        return store.load(runId);
      },
    };
    const h = harness({ store: flaky });
    const { runId, approvalId } = await startPaused(h);
    const missing = JSON.stringify({ runId, approvalId: 'apr_nope', approved: true });
    const notFound = signed(missing, { id: 'msg_404' });
    expect((await h.app.request(decisionPath(runId, 'apr_nope'), post(missing, notFound))).status).toBe(404);
    expect((await h.app.request(decisionPath(runId, 'apr_nope'), post(missing, notFound))).status).toBe(404);

    const body = JSON.stringify({ runId, approvalId, approved: true });
    const headers = signed(body, { id: 'msg_retry' });
    down = true;
    expect((await h.app.request(decisionPath(runId, approvalId), post(body, headers))).status).toBe(503);
    down = false;
    const retried = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('webhook-replayed')).toBeNull();
    expect(h.executed).toEqual(['/tmp/x']);
  });
});

describe('bearer tokens and configuration', () => {
  it('refuses a missing, wrong or malformed bearer token with 401', async () => {
    const h = harness();
    const { runId } = await startPaused(h);
    for (const authorization of [
      undefined,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      'Bearer',
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN} extra`,
    ]) {
      const res = await h.app.request(`/runs/${runId}`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(res.status, String(authorization)).toBe(401);
      expect(((await res.json()) as Body)['code']).toBe('unauthorized');
    }
    expect((await h.app.request(`/runs/${runId}`, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('a wrong bearer token is refused even when a valid signature comes with it', async () => {
    const h = harness();
    const { runId } = await startPaused(h);
    const body = '{}';
    const res = await h.app.request(
      `/runs/${runId}/cancel`,
      post(body, { ...signed(body), authorization: 'Bearer wrong-token-123456789' }),
    );
    expect(res.status).toBe(401);
    expect((await h.runtime.get(runId)).status).toBe('awaitingApproval');
  });

  it('refuses to build an app without authentication unless insecure: true is passed', async () => {
    const runtime = createRuntime({ agents: [harness().runtime.agent('files')] });
    expect(() => createApprovalApp(runtime)).toThrow(ConfigError);
    expect(() => createApprovalApp(runtime, {})).toThrow(/bearerToken|webhookSecret/);
    expect(() => createApprovalApp(runtime, { bearerToken: 'short' })).toThrow(ConfigError);
    expect(() => createApprovalApp(runtime, { webhookSecret: 'not-a-whsec-secret' })).toThrow(/whsec_/);
    expect(() => createApprovalApp(runtime, { webhookSecret: 'whsec_AAAA' })).toThrow(/16 bytes/);
    expect(() => createApprovalApp(runtime, { bearerToken: TOKEN, maxBodyBytes: -1 })).toThrow(ConfigError);
    const open = createApprovalApp(runtime, { insecure: true });
    expect((await open.request('/approvals')).status).toBe(200);
    // Another web page can send a "simple" cross-site POST; without credentials, only JSON (which needs a CORS preflight) is taken.
    expect((await open.request('/runs/run_1/cancel', { method: 'POST' })).status).toBe(415);
    expect(
      (
        await open.request('/runs/run_1/cancel', {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await open.request('/runs/run_1/cancel', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(404);
  });
});

describe('hostile bodies', () => {
  it('refuses prototype-pollution bodies with 400; nothing is polluted and nothing changes', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const bodies = [
      '{"__proto__":{"polluted":1},"approved":true}',
      '{"approved":true,"constructor":{"prototype":{"polluted":1}}}',
      '{"approved":true,"args":{"path":"/x","__proto__":{"polluted":1}}}',
      '{"approved":true,"args":{"path":"/x","nested":[{"constructor":{"prototype":{"polluted":1}}}]}}',
    ];
    for (const body of bodies) {
      for (const headers of [bearer(), signed(body)]) {
        const res = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
        expect(res.status, body).toBe(400);
        expect(((await res.json()) as Body)['code']).toBe('invalid_body');
      }
    }
    const start = await h.app.request(
      '/runs',
      post('{"agent":"files","input":"/x","__proto__":{"polluted":1}}', bearer()),
    );
    expect(start.status).toBe(400);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(await stateOf(h, runId)).toBe(before);
    expect(h.executed).toEqual([]);
  });

  it('refuses absurdly deep JSON with 400 instead of overflowing the stack', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const deep = `{"approved":true,"args":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const res = await h.app.request(decisionPath(runId, approvalId), post(deep, bearer()));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body)['detail']).toContain('deeper');
  });

  it('refuses a body over the limit with 413: by content-length, and a chunked stream without reading it all', async () => {
    const h = harness({ app: { maxBodyBytes: 4096 } });
    const big = JSON.stringify({ agent: 'files', input: 'x'.repeat(5000) });
    const byLength = await h.app.request('/runs', post(big, bearer()));
    expect(byLength.status).toBe(413);
    expect(await byLength.json()).toMatchObject({ code: 'body_too_large', maxBytes: 4096 });

    let pulled = 0;
    const chunk = new Uint8Array(1024).fill(0x20);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        if (pulled > 10 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await h.app.request('/runs', {
      method: 'POST',
      headers: { ...bearer(), 'transfer-encoding': 'chunked' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(1024 * 1024);
    expect(h.modelCalls()).toBe(0);
  });
});

describe('one-click links', () => {
  const pathOf = (url: string) => new URL(url).pathname;

  it('GET shows a confirmation page and changes nothing; the form POST decides once; a second POST is 410', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const links = await linkUrls(h.runtime, runId, approvalId, { approvedBy: 'alice@example.com' });
    const before = await stateOf(h, runId);
    for (let i = 0; i < 3; i++) {
      const page = await h.app.request(pathOf(links.approve));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      expect(html).toContain('<code>delete_file</code>');
      expect(html).toContain('&quot;path&quot;: &quot;/tmp/x&quot;');
      expect(html).not.toContain('sk-secret-value');
      // Relative, so the form still works when the app is mounted under a prefix.
      expect(html).toContain(`<form method="post" action="./${pathOf(links.approve).slice('/links/'.length)}">`);
    }
    expect(await stateOf(h, runId)).toBe(before);
    const decided = await h.app.request(pathOf(links.approve), { method: 'POST' });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('Approved');
    expect((await h.runtime.get(runId)).status).toBe('completed');
    expect((await h.runtime.get(runId)).audit[0]).toMatchObject({ by: 'alice@example.com', decision: 'approved' });
    const reused = await h.app.request(pathOf(links.approve), { method: 'POST' });
    expect(reused.status).toBe(410);
    expect(await reused.text()).toContain('nothing was done again. This button was used before.');
    const denyAfter = await h.app.request(pathOf(links.deny), { method: 'POST' });
    expect(denyAfter.status).toBe(409);
    expect(h.executed).toEqual(['/tmp/x']);
    const stale = await h.app.request(pathOf(links.approve));
    expect(stale.status).toBe(410);
    expect(await stale.text()).toContain('Already approved by alice@example.com; nothing was done again.');
  });

  it('a deny link denies', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const links = await linkUrls(h.runtime, runId, approvalId);
    const res = await h.app.request(pathOf(links.deny), { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Denied');
    expect(h.executed).toEqual([]);
  });

  it('refuses forged tokens, tokens altered to name another approval, and expired tokens', async () => {
    let now = Date.UTC(2026, 0, 1);
    const h = harness({ clock: () => now });
    const a = await startPaused(h, '/a');
    const b = await startPaused(h, '/b');
    const links = await linkUrls(h.runtime, a.runId, a.approvalId, { expiresIn: 60_000 });
    const token = pathOf(links.approve).slice('/links/'.length);
    const [payload, mac] = token.split('.') as [string, string];
    // Tokens are sealed: a retargeting attempt splices another approval's body onto this token's tag.
    const [otherPayload] = pathOf((await linkUrls(h.runtime, b.runId, b.approvalId, { expiresIn: 60_000 })).approve)
      .slice('/links/'.length)
      .split('.') as [string];
    const retargeted = otherPayload;
    const before = [await stateOf(h, a.runId), await stateOf(h, b.runId)];
    const cases: [string, number][] = [
      [`${retargeted}.${mac}`, 401],
      // The tag's first character changed (its last ones carry padding bits: changing them could decode to the same tag).
      [`${payload}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`, 401],
      [`${payload}`, 401],
      [`${payload}.${mac}.extra`, 401],
      ['x'.repeat(10_000), 401],
      ['%3Cscript%3E', 401],
    ];
    for (const [forged, status] of cases) {
      for (const method of ['GET', 'POST']) {
        const res = await h.app.request(`/links/${forged}`, { method });
        expect(res.status, `${method} ${forged.slice(0, 40)}`).toBe(status);
        expect(await res.text()).not.toContain('<script>');
      }
    }
    now += 60_001;
    expect((await h.app.request(pathOf(links.approve))).status).toBe(410);
    expect((await h.app.request(pathOf(links.approve), { method: 'POST' })).status).toBe(410);
    expect([await stateOf(h, a.runId), await stateOf(h, b.runId)]).toEqual(before);
  });

  it('escapes hostile arguments and warnings on the confirmation page', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h, '<script>alert(1)</script>"onmouseover="x');
    const links = await linkUrls(h.runtime, runId, approvalId);
    const html = await (await h.app.request(pathOf(links.approve))).text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('"onmouseover');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('links need no bearer token, and a server without links answers 404', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const links = await linkUrls(h.runtime, runId, approvalId);
    const plain = createRuntime({ agents: [h.runtime.agent('files')], store: h.store });
    const app = createApprovalApp(plain, { bearerToken: TOKEN });
    expect((await app.request(pathOf(links.approve))).status).toBe(404);
    expect((await app.request(pathOf(links.approve), { method: 'POST' })).status).toBe(404);
  });
});
