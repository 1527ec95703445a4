// The HTTP boundary over a real loopback server: signed writes bound to their target, webhook-ids claimed before
// the handler, blanket decisions under a decision secret, bodies that stall or are cut off, timeouts, the
// insecure demo mode's loopback guard and caching headers.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRuleStore } from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { bearer, harness, json, NOW_MS, signed, startPaused, stateOf, type Harness } from './harness.js';

type Body = Record<string, any>;

const servers: ServeHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Serves an app on a free loopback port; `handled()` resolves with each request's answer once the app produced it. */
async function serveApp(
  app: { fetch: (request: Request, ...rest: any[]) => Response | Promise<Response> },
  options: Parameters<typeof serve>[1] = { port: 0 },
) {
  const answers: Promise<Response>[] = [];
  let arrived: () => void = () => undefined;
  const server = await serve(
    {
      fetch: (request, ...rest) => {
        const answer = Promise.resolve(app.fetch(request, ...rest));
        answers.push(answer);
        arrived();
        return answer;
      },
    },
    options,
  );
  servers.push(server);
  /** Waits until the app has been handed `count` requests (their handlers are running), and returns their answers. */
  const arrivals = async (count: number) => {
    while (answers.length < count) await new Promise<void>((resolve) => (arrived = resolve));
    return answers.slice(0, count);
  };
  const handled = async (count: number) => Promise.all(await arrivals(count));
  return { server, base: server.url, arrivals, handled };
}

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * One request written by hand: `body` is sent as is, and with `hold: true` the request is left open after it (a
 * client that stalls mid-body). Resolves with the answer, or `'closed'` when the server closed without one.
 */
function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; hold?: boolean },
) {
  const url = new URL(base);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path,
    method: options.method ?? 'POST',
    headers: options.headers ?? {},
  });
  const answer = new Promise<RawAnswer | 'closed'>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
    req.on('close', () => setImmediate(() => resolve('closed')));
  });
  if (options.body !== undefined) req.write(options.body);
  if (!options.hold) req.end();
  return { req, answer };
}

const post = (body: string, headers: Record<string, string>) => ({ method: 'POST', headers, body });

async function send(base: string, path: string, body: unknown, headers: Record<string, string>) {
  const text = JSON.stringify(body);
  const res = await fetch(`${base}${path}`, post(text, { 'content-type': 'application/json', ...headers }));
  return { status: res.status, headers: res.headers, body: (await res.json()) as Body };
}

const signedSend = (base: string, path: string, body: unknown, id?: string) =>
  send(base, path, body, signed(JSON.stringify(body), id === undefined ? {} : { id }));

describe('signed writes name their target', () => {
  it('a signed decision for run A replayed to run B is refused (403 target_mismatch) and B stays pending', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const a = await startPaused(h, '/tmp/a');
    const b = await startPaused(h, '/tmp/b');
    const before = await stateOf(h, b.runId);
    const captured = { runId: a.runId, approvalId: a.approvalId, approved: true, approvedBy: 'slack:U1' };
    const replayed = await signedSend(base, `/runs/${b.runId}/approvals/${b.approvalId}`, captured);
    expect(replayed.status).toBe(403);
    expect(replayed.body).toMatchObject({
      code: 'target_mismatch',
      reason: 'mismatch',
      runId: b.runId,
      approvalId: b.approvalId,
    });
    // A signed body that names no target is refused too, saying what to send.
    const bare = await signedSend(base, `/runs/${b.runId}/approvals/${b.approvalId}`, {
      approved: true,
      approvedBy: 'slack:U1',
    });
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ code: 'target_mismatch', reason: 'missing' });
    expect(bare.body['detail']).toContain(`"runId": "${b.runId}" and "approvalId": "${b.approvalId}"`);
    expect(await stateOf(h, b.runId)).toBe(before);
    expect(h.executed).toEqual([]);
    // Delivered where it was meant to go, it decides run A.
    const meant = await signedSend(base, `/runs/${a.runId}/approvals/${a.approvalId}`, captured);
    expect(meant.status).toBe(200);
    expect(h.executed).toEqual(['/tmp/a']);
  });

  it('a signed approval for one approval of a run cannot decide its sibling', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const start = await h.app.request('/runs', json({ agent: 'files', input: '/tmp/one /tmp/two' }));
    const run = ((await start.json()) as Body)['run'];
    const [first, second] = run.pendingApprovals.map((request: Body) => request['approvalId'] as string);
    const res = await signedSend(base, `/runs/${run.runId}/approvals/${second}`, {
      runId: run.runId,
      approvalId: first,
      approved: true,
    });
    expect(res.status).toBe(403);
    expect(res.body['code']).toBe('target_mismatch');
    expect((await h.runtime.get(run.runId)).pendingApprovals).toHaveLength(2);
  });

  it('a signed approveAll or cancel for run A replayed to run B is refused, even with a decision secret', async () => {
    const h = harness({ decisionSecret: 'decision-secret-0123456789' });
    const { base } = await serveApp(h.app);
    const a = await startPaused(h, '/tmp/a');
    const b = await startPaused(h, '/tmp/b');
    const before = await stateOf(h, b.runId);
    for (const [path, body] of [
      [
        `/runs/${b.runId}/approvals`,
        { runId: a.runId, approveAll: true, approvedBy: 'ops', signatures: [a.signature] },
      ],
      [
        `/runs/${b.runId}/approvals`,
        { runId: a.runId, decisions: [{ approvalId: b.approvalId, approved: true, signature: b.signature }] },
      ],
      [`/runs/${b.runId}/cancel`, { runId: a.runId, reason: 'stop' }],
    ] as const) {
      const res = await signedSend(base, path, body);
      expect(res.status, path).toBe(403);
      expect(res.body['code'], path).toBe('target_mismatch');
    }
    for (const path of [`/runs/${b.runId}/approvals`, `/runs/${b.runId}/cancel`]) {
      const res = await signedSend(
        base,
        path,
        path.endsWith('cancel') ? {} : { approveAll: true, approvedBy: 'ops', signatures: [b.signature] },
      );
      expect(res.status, path).toBe(400);
      expect(res.body['reason'], path).toBe('missing');
    }
    expect(await stateOf(h, b.runId)).toBe(before);
    expect(h.executed).toEqual([]);
  });

  it('with a bearer token the target is optional, and checked when sent', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const a = await startPaused(h, '/tmp/a');
    const b = await startPaused(h, '/tmp/b');
    const wrong = await send(base, `/runs/${b.runId}/cancel`, { runId: a.runId }, bearer());
    expect(wrong.status).toBe(403);
    expect(wrong.body['code']).toBe('target_mismatch');
    expect((await h.runtime.get(b.runId)).status).toBe('awaitingApproval');
    expect((await send(base, `/runs/${b.runId}/cancel`, { runId: b.runId }, bearer())).status).toBe(200);
    expect((await send(base, `/runs/${a.runId}/cancel`, {}, bearer())).status).toBe(200);
  });
});

describe('signed rule writes name their rule', () => {
  it('a signed enable, disable or delete of one rule replayed to another is refused (400 target_mismatch), and so is one naming none', async () => {
    const rules = createMemoryRuleStore();
    const h = harness({ app: { rules } });
    const { base } = await serveApp(h.app);
    const a = await rules.add({ tool: 'search_*', action: 'allow' });
    const b = await rules.add({ tool: 'delete_*', action: 'deny' });
    const sendSigned = (method: string, path: string, body: unknown) => {
      const text = JSON.stringify(body);
      return fetch(`${base}${path}`, { method, headers: signed(text), body: text });
    };
    for (const [method, body] of [
      ['POST', { enabled: false, ruleId: a.id }],
      ['POST', { enabled: false }],
      ['DELETE', { ruleId: a.id }],
      ['DELETE', {}],
    ] as const) {
      const refused = await sendSigned(method, `/rules/${b.id}`, body);
      expect(refused.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'target_mismatch', ruleId: b.id });
    }
    expect(await rules.list()).toEqual([a, b]);
    // Sent where it was meant to go, it acts; with a bearer token the rule may be left out, and is checked when sent.
    expect((await sendSigned('POST', `/rules/${b.id}`, { enabled: false, ruleId: b.id })).status).toBe(200);
    expect((await send(base, `/rules/${a.id}`, { enabled: false, ruleId: b.id }, bearer())).status).toBe(400);
    expect((await sendSigned('DELETE', `/rules/${b.id}`, { ruleId: b.id })).status).toBe(200);
    expect(await rules.list()).toEqual([a]);
    expect((await fetch(`${base}/rules/${a.id}`, { method: 'DELETE', headers: bearer() })).status).toBe(200);
    expect(await rules.list()).toEqual([]);
  });
});

describe('a webhook-id is claimed before the handler runs', () => {
  it('the same webhook-id with another path and body is refused with 409 and never handled', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const a = await startPaused(h, '/tmp/a');
    const b = await startPaused(h, '/tmp/b');
    const first = await signedSend(
      base,
      `/runs/${a.runId}/approvals/${a.approvalId}`,
      { runId: a.runId, approvalId: a.approvalId, approved: true },
      'msg_reused',
    );
    expect(first.status).toBe(200);
    const before = await stateOf(h, b.runId);
    const reused = await signedSend(
      base,
      `/runs/${b.runId}/cancel`,
      { runId: b.runId, reason: 'other body' },
      'msg_reused',
    );
    expect(reused.status).toBe(409);
    expect(reused.headers.get('webhook-replayed')).toBeNull();
    expect(reused.body).toMatchObject({ code: 'webhook_id_reused', webhookId: 'msg_reused' });
    expect(await stateOf(h, b.runId)).toBe(before);
    // Same path, another body: refused as well.
    const rewritten = await signedSend(
      base,
      `/runs/${a.runId}/approvals/${a.approvalId}`,
      { runId: a.runId, approvalId: a.approvalId, approved: false },
      'msg_reused',
    );
    expect(rewritten.status).toBe(409);
    expect(rewritten.body['code']).toBe('webhook_id_reused');
    // The identical redelivery still gets the first answer.
    const again = await signedSend(
      base,
      `/runs/${a.runId}/approvals/${a.approvalId}`,
      { runId: a.runId, approvalId: a.approvalId, approved: true },
      'msg_reused',
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('webhook-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(h.executed).toEqual(['/tmp/a']);
  });

  it('while the first delivery is handled, its redelivery is told to retry, and is then answered with the kept answer', async () => {
    const h = harness({ holdTool: true });
    const { base } = await serveApp(h.app);
    const a = await startPaused(h, '/tmp/a');
    const body = { runId: a.runId, approvalId: a.approvalId, approved: true };
    const first = signedSend(base, `/runs/${a.runId}/approvals/${a.approvalId}`, body, 'msg_slow');
    // The tool is held: the first delivery is still in its handler until release().
    while ((await h.runtime.get(a.runId)).status !== 'running') await new Promise((resolve) => setImmediate(resolve));
    const during = await signedSend(base, `/runs/${a.runId}/approvals/${a.approvalId}`, body, 'msg_slow');
    expect(during.status).toBe(409);
    expect(during.headers.get('retry-after')).toBe('1');
    expect(during.body['code']).toBe('webhook_in_progress');
    h.release();
    expect((await first).status).toBe(200);
    const after = await signedSend(base, `/runs/${a.runId}/approvals/${a.approvalId}`, body, 'msg_slow');
    expect(after.status).toBe(200);
    expect(after.headers.get('webhook-replayed')).toBe('true');
    expect(h.executed).toEqual(['/tmp/a']);
  });
});

describe('approveAll and denyAll under a decision secret', () => {
  it('decide only the requests whose signatures the caller echoes; without echoes nothing is decided', async () => {
    const h = harness({ decisionSecret: 'decision-secret-0123456789' });
    const { base } = await serveApp(h.app);
    const start = await h.app.request('/runs', json({ agent: 'files', input: '/tmp/seen /tmp/unseen' }));
    const run = ((await start.json()) as Body)['run'];
    const [seen, unseen] = run.pendingApprovals as Body[];
    const before = await stateOf(h, run.runId);

    for (const verb of ['approveAll', 'denyAll']) {
      const blind = await send(
        base,
        `/runs/${run.runId}/approvals`,
        { runId: run.runId, [verb]: true, approvedBy: 'ops' },
        bearer(),
      );
      expect(blind.status, verb).toBe(400);
      expect(blind.body['code'], verb).toBe('invalid_signature');
      expect(blind.body['detail'], verb).toContain('"signatures"');
    }
    const forged = await send(
      base,
      `/runs/${run.runId}/approvals`,
      { runId: run.runId, approveAll: true, approvedBy: 'ops', signatures: ['not-a-signature'] },
      bearer(),
    );
    expect(forged.status).toBe(400);
    expect(await stateOf(h, run.runId)).toBe(before);

    // Signed the Standard Webhooks way, naming its run.
    const echoed = await signedSend(base, `/runs/${run.runId}/approvals`, {
      runId: run.runId,
      approveAll: true,
      approvedBy: 'ops',
      signatures: [seen!['signature']],
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body['results']).toEqual([{ approvalId: seen!['approvalId'], ok: true, duplicate: false }]);
    expect(echoed.body['status']).toBe('awaitingApproval');
    expect(echoed.body['run'].pendingApprovals.map((request: Body) => request['approvalId'])).toEqual([
      unseen!['approvalId'],
    ]);
    expect(h.executed).toEqual([]);
  });
});

describe('bodies that stall or are cut off', () => {
  const cutOff = (base: string, path: string, headers: Record<string, string>) => {
    const { req } = rawRequest(base, path, { headers, body: '{"reason":"cut', hold: true });
    return req;
  };

  it('a client that hangs up mid-body is a client error: nothing reaches onError and nothing changes', async () => {
    const h = harness();
    const { base, arrivals } = await serveApp(h.app);
    const { runId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const sized = cutOff(base, `/runs/${runId}/cancel`, {
      ...bearer(),
      'content-type': 'application/json',
      'content-length': '1000',
    });
    const chunked = cutOff(base, `/runs/${runId}/cancel`, {
      ...bearer(),
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    // Both requests are in the app's hands (their handlers wait for the rest of the body) before the clients hang up.
    const answers = await arrivals(2);
    sized.destroy();
    chunked.destroy();
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    expect(statuses).toEqual([400, 400]);
    expect(h.errors).toEqual([]);
    expect(await stateOf(h, runId)).toBe(before);
  });

  it('a signed request with a stale timestamp is refused before its body arrives', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const { runId } = await startPaused(h);
    const body = JSON.stringify({ runId });
    const stale = signed(body, { at: NOW_MS - 3_600_000 });
    const { req, answer } = rawRequest(base, `/runs/${runId}/cancel`, {
      headers: { ...stale, 'content-length': String(body.length + 100) },
      body,
      hold: true,
    });
    const result = await answer;
    req.destroy();
    expect(result).not.toBe('closed');
    expect((result as RawAnswer).status).toBe(401);
    expect(JSON.parse((result as RawAnswer).body)).toMatchObject({
      code: 'invalid_webhook_signature',
      reason: 'stale_timestamp',
    });
    expect((await h.runtime.get(runId)).status).toBe('awaitingApproval');
  });
});

describe('serve() timeouts', () => {
  it("defaults well below Node's 300 s request timeout, and can be set", async () => {
    const h = harness();
    const { server } = await serveApp(h.app);
    expect(server.server).toMatchObject({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 });
    const tuned = await serve(h.app, {
      port: 0,
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 1_000,
    });
    servers.push(tuned);
    expect(tuned.server).toMatchObject({ requestTimeout: 60_000, headersTimeout: 5_000, keepAliveTimeout: 1_000 });
    await expect(serve(h.app, { port: 0, requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 })).rejects.toThrow(
      /headersTimeoutMs/,
    );
  });

  it('a client that stalls mid-body is cut off at the request timeout, without an error report', async () => {
    const h = harness();
    const { base, handled } = await serveApp(h.app, { port: 0, requestTimeoutMs: 200, headersTimeoutMs: 200 });
    const { runId } = await startPaused(h);
    const { req, answer } = rawRequest(base, `/runs/${runId}/cancel`, {
      headers: { ...bearer(), 'content-type': 'application/json', 'content-length': '1000' },
      body: '{',
      hold: true,
    });
    const result = await answer;
    req.destroy();
    // Node answers 408 and closes the connection; the handler waiting for the body gives up as a client error.
    expect(result === 'closed' || result.status === 408).toBe(true);
    expect((await handled(1))[0]!.status).toBe(400);
    expect(h.errors).toEqual([]);
    expect((await h.runtime.get(runId)).status).toBe('awaitingApproval');
  });
});

describe('insecure demo mode answers loopback only', () => {
  async function demo(): Promise<{ h: Harness; base: string; port: string }> {
    const h = harness();
    const app = createApprovalApp(h.runtime, { insecure: true, onError: (error) => h.errors.push(error) });
    const { base } = await serveApp(app);
    return { h, base, port: new URL(base).port };
  }

  it('refuses a DNS-rebinding Host and a foreign Origin (403 not_loopback), so no page elsewhere approves a call; loopback is answered', async () => {
    const { h, base, port } = await demo();
    const { runId, approvalId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const decision = JSON.stringify({ approved: true, approvedBy: 'page' });
    const attempts: [string, Record<string, string>][] = [
      ['rebound host', { host: `rebind.attacker.example:${port}` }],
      ['rebound host, no port', { host: 'attacker.example' }],
      ['foreign origin', { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' }],
      ['null origin', { host: `localhost:${port}`, origin: 'null' }],
      ['look-alike origin', { host: `localhost:${port}`, origin: `http://localhost.attacker.example:${port}` }],
    ];
    for (const [name, headers] of attempts) {
      for (const [method, path, body] of [
        ['GET', '/approvals', undefined],
        ['POST', `/runs/${runId}/approvals/${approvalId}`, decision],
      ] as const) {
        const result = await rawRequest(base, path, {
          method,
          headers: { ...headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body }),
        }).answer;
        expect(result, `${name} ${method}`).not.toBe('closed');
        expect((result as RawAnswer).status, `${name} ${method}`).toBe(403);
        expect(JSON.parse((result as RawAnswer).body)['code'], `${name} ${method}`).toBe('not_loopback');
      }
    }
    expect(await stateOf(h, runId)).toBe(before);
    expect(h.executed).toEqual([]);

    // Loopback names and origins, any port, are answered as before.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
      const result = await rawRequest(base, '/approvals', {
        method: 'GET',
        headers: { host, origin: 'http://localhost:5173' },
      }).answer;
      expect((result as RawAnswer).status, host).toBe(200);
    }
    const decided = await rawRequest(base, `/runs/${runId}/approvals/${approvalId}`, {
      headers: { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, approvedBy: 'me' }),
    }).answer;
    expect((decided as RawAnswer).status).toBe(200);
    expect(h.executed).toEqual(['/tmp/x']);
  });
});

describe('caching', () => {
  it('JSON answers carry cache-control: no-store, problems included', async () => {
    const h = harness();
    const { base } = await serveApp(h.app);
    const { runId } = await startPaused(h);
    for (const path of [`/runs/${runId}`, '/approvals', '/runs/run_missing', '/healthz']) {
      const res = await fetch(`${base}${path}`, { headers: bearer() });
      expect(res.headers.get('content-type'), path).toMatch(/json/);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
    const decided = await send(base, `/runs/${runId}/cancel`, { runId }, bearer());
    expect(decided.headers.get('cache-control')).toBe('no-store');
  });
});
