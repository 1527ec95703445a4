// A real HTTP server on loopback, a real Redis store, and the standardwebhooks
// library as the external client that signs requests.
import { request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisStore, createStreamNotifier } from 'countersign/redis';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { harness, json, SECRET, TOKEN, type Harness } from './harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('the approval app on a real server with Redis', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  let server: ServeHandle | undefined;

  beforeAll(() => {
    redis = new Redis(url!, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** An app on its own key prefix, served on a free loopback port; webhook timestamps use the real clock. */
  async function start(options: { maxBodyBytes?: number } = {}): Promise<{ h: Harness; base: string }> {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const h = harness({ store: createRedisStore({ redis, prefix }), app: { clock: Date.now, ...options } });
    server = await serve(h.app, { port: 0 });
    expect(server.port).toBeGreaterThan(0);
    return { h, base: server.url };
  }

  const signedFetch = (target: string, body: unknown, id = `msg_${Math.random().toString(36).slice(2)}`) => {
    const text = JSON.stringify(body);
    const now = new Date();
    const signature = new Webhook(SECRET).sign(id, now, text);
    return fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: text,
    });
  };

  it('starts, shows, decides and replays over HTTP, with the run in Redis', async () => {
    const { h, base } = await start();
    const started = await signedFetch(`${base}/runs`, { agent: 'files', input: '/srv/old.log' });
    expect(started.status).toBe(201);
    const run = ((await started.json()) as { run: { runId: string; pendingApprovals: { approvalId: string }[] } }).run;
    const approvalId = run.pendingApprovals[0]!.approvalId;

    const listed = await fetch(`${base}/approvals`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await listed.json()) as { items: { runId: string }[] }).items.map((item) => item.runId)).toContain(
      run.runId,
    );

    const decisionId = 'msg_e2e_decision';
    const decision = { runId: run.runId, approvalId, approved: true, approvedBy: 'slack:U42' };
    const decided = await signedFetch(`${base}/runs/${run.runId}/approvals/${approvalId}`, decision, decisionId);
    expect(decided.status).toBe(200);
    const first = await decided.text();
    expect(JSON.parse(first)).toMatchObject({ status: 'completed', duplicate: false });

    const replay = await signedFetch(`${base}/runs/${run.runId}/approvals/${approvalId}`, decision, decisionId);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(first);
    expect(replay.headers.get('webhook-replayed')).toBe('true');
    expect(h.executed).toEqual(['/srv/old.log']);

    const view = await fetch(`${base}/runs/${run.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await view.json()).toMatchObject({
      status: 'completed',
      audit: [{ by: 'slack:U42', decision: 'approved' }],
    });
  });

  it('claims a webhook-id in Redis before the handler: another path or body under it is refused, a replay to another run is refused', async () => {
    const { h, base } = await start();
    const started = await signedFetch(`${base}/runs`, { agent: 'files', input: '/srv/a.log /srv/b.log' });
    const run = ((await started.json()) as { run: { runId: string; pendingApprovals: { approvalId: string }[] } }).run;
    const [a, b] = run.pendingApprovals.map((request) => request.approvalId) as [string, string];
    const other = await signedFetch(`${base}/runs`, { agent: 'files', input: '/srv/other.log' });
    const otherRun = ((await other.json()) as { run: { runId: string } }).run.runId;

    const decided = await signedFetch(
      `${base}/runs/${run.runId}/approvals/${a}`,
      { runId: run.runId, approvalId: a, approved: true },
      'msg_e2e_claim',
    );
    expect(decided.status).toBe(200);
    const reused = await signedFetch(
      `${base}/runs/${run.runId}/approvals/${b}`,
      { runId: run.runId, approvalId: b, approved: true },
      'msg_e2e_claim',
    );
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ code: 'webhook_id_reused' });
    const elsewhere = await signedFetch(`${base}/runs/${otherRun}/cancel`, { runId: run.runId }, 'msg_e2e_elsewhere');
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toMatchObject({ code: 'target_mismatch' });

    const view = (await (
      await fetch(`${base}/runs/${run.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      status: string;
      pendingApprovals: { approvalId: string }[];
    };
    expect(view.pendingApprovals.map((request) => request.approvalId)).toEqual([b]);
    expect((await h.runtime.get(otherRun)).status).toBe('awaitingApproval');
    expect(h.executed).toEqual([]);
  });

  it('verifies the Standard Webhooks known-answer vector on the wire', async () => {
    const vector = {
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
      signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const h = harness({ app: { clock: () => vector.timestamp * 1000 } });
    server = await serve(h.app, { port: 0 });
    const send = (signature: string) =>
      fetch(`${server!.url}/runs/run_any/cancel`, {
        method: 'POST',
        headers: {
          'webhook-id': vector.id,
          'webhook-timestamp': String(vector.timestamp),
          'webhook-signature': signature,
        },
        body: vector.body,
      });
    // The signature verifies, so the body is read, and the cancel schema refuses its unknown key.
    const verified = await send(vector.signature);
    expect(verified.status).toBe(400);
    expect(await verified.json()).toMatchObject({ code: 'invalid_body' });
    expect((await send(vector.signature.replace('g0h', 'g0i'))).status).toBe(401);
  });

  it('refuses a 10 MB chunked body with 413 after reading about the limit, before any handler runs', async () => {
    const { h, base } = await start({ maxBodyBytes: 64 * 1024 });
    const target = new URL(`${base}/runs`);
    const total = 10 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const outcome = await new Promise<{ status: number; body: string; written: number }>((resolve, reject) => {
      let written = 0;
      let answered = false;
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          answered = true;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (data: string) => (body += data));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body, written });
            req.destroy();
          });
        },
      );
      // Once the server has answered it may close the connection under our feet; that is expected.
      req.on('error', (error) => (answered ? undefined : reject(error)));
      const pump = () => {
        while (!answered && written < total) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(outcome.status).toBe(413);
    expect(outcome.written).toBeLessThan(total);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'body_too_large', maxBytes: 65536 });
    expect(h.modelCalls()).toBe(0);
    expect((await h.runtime.pending()).items).toEqual([]);
  });

  it('streams events to a client over the socket and unsubscribes when it disconnects', async () => {
    const { h } = await start();
    let listeners = 0;
    const app = createApprovalApp(h.runtime, {
      bearerToken: TOKEN,
      events: {
        subscribe(listener) {
          listeners += 1;
          const off = h.runtime.subscribe(listener);
          return () => {
            listeners -= 1;
            off();
          };
        },
      },
    });
    const own = await serve(app, { port: 0 });
    try {
      const controller = new AbortController();
      const res = await fetch(`${own.url}/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes(': connected')) text += decoder.decode((await reader.read()).value, { stream: true });
      expect(listeners).toBe(1);
      const started = await fetch(`${own.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'files', input: '/tmp/e' }),
      });
      expect(started.status).toBe(201);
      while (!text.includes('event: approval-requested'))
        text += decoder.decode((await reader.read()).value, { stream: true });
      expect(text).toContain('"toolName":"delete_file"');
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await expect.poll(() => listeners, { timeout: 10_000 }).toBe(0);
    } finally {
      await own.close();
    }
  });

  it("streams another process's events when fed by the Redis event stream", async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    // Two instances that share nothing but Redis: one serves the event stream, the other takes the requests.
    const writer = harness({ store: createRedisStore({ redis, prefix }) });
    const reader = harness({ store: createRedisStore({ redis, prefix }) });
    const feed = createStreamNotifier({ redis, prefix, group: 'sse', blockMs: 200, onError: () => {} });
    const app = createApprovalApp(reader.runtime, { bearerToken: TOKEN, events: feed });
    server = await serve(app, { port: 0 });
    try {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: controller.signal,
      });
      const body = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const until = async (needle: string) => {
        while (!text.includes(needle)) text += decoder.decode((await body.read()).value, { stream: true });
      };
      await until(': connected');
      const started = await writer.app.request('/runs', json({ agent: 'files', input: '/tmp/elsewhere' }));
      const run = ((await started.json()) as { run: { runId: string; pendingApprovals: { approvalId: string }[] } })
        .run;
      await until('event: approval-requested');
      await writer.app.request(
        `/runs/${run.runId}/approvals/${run.pendingApprovals[0]!.approvalId}`,
        json({ approved: true }),
      );
      await until('event: run-completed');
      expect(text).toContain(`"runId":"${run.runId}"`);
      controller.abort();
      await body.cancel().catch(() => undefined);
    } finally {
      await feed.close();
    }
  });
});
