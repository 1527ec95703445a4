import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { bearer, harness, json, startPaused, TOKEN } from './harness.js';
import { sseReader } from './sse-reader.js';

describe('GET /events', () => {
  it('streams approval-requested, approval-resolved, tool-finished and run-completed as they are committed', async () => {
    const h = harness();
    const res = await h.app.request('/events', { headers: bearer() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = sseReader(res);
    expect(await events.next()).toBe(': connected');
    const { runId, approvalId } = await startPaused(h);
    const requested = await events.event();
    expect(requested.type).toBe('approval-requested');
    expect(requested.data).toMatchObject({
      runId,
      agentName: 'files',
      request: { approvalId, toolName: 'delete_file' },
    });
    expect(JSON.stringify(requested.data)).not.toContain('sk-secret-value');
    await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' }));
    expect((await events.event()).type).toBe('approval-resolved');
    expect(await events.event()).toMatchObject({
      type: 'tool-finished',
      data: { runId, approvalId, toolName: 'delete_file', status: 'succeeded' },
    });
    expect(await events.event()).toMatchObject({ type: 'run-completed', data: { runId } });
    await events.cancel();
  });

  it("filters by ?runId= (the other run's events never arrive) and sends run-cancelled", async () => {
    const h = harness();
    const first = await startPaused(h, '/one');
    const events = sseReader(await h.app.request(`/events?runId=${first.runId}`, { headers: bearer() }));
    await events.next();
    await startPaused(h, '/two');
    await h.app.request(`/runs/${first.runId}/cancel`, json({ reason: 'enough' }));
    expect(await events.event()).toMatchObject({ type: 'run-cancelled', data: { runId: first.runId } });
    await events.cancel();
  });

  it('sends heartbeat comments and unsubscribes when the client goes away', async () => {
    let listeners = 0;
    const feed = {
      subscribe(listener: (event: RunEvent) => void) {
        listeners += 1;
        void listener;
        return () => {
          listeners -= 1;
        };
      },
    };
    const h = harness();
    const app = createApprovalApp(h.runtime, { bearerToken: TOKEN, events: feed, heartbeatMs: 10 });
    const events = sseReader(await app.request('/events', { headers: bearer() }));
    expect(await events.next()).toBe(': connected');
    await expect.poll(() => listeners, { timeout: 10_000 }).toBe(1);
    let block = await events.next();
    while (block.startsWith('retry')) block = await events.next();
    expect(block).toBe(': heartbeat');
    await events.cancel();
    await expect.poll(() => listeners, { timeout: 10_000 }).toBe(0);
  });

  it('reads from an injected feed (say, a Redis stream reader), not only this process', async () => {
    let push: (event: RunEvent) => void = () => undefined;
    const h = harness();
    const app = createApprovalApp(h.runtime, {
      bearerToken: TOKEN,
      events: {
        subscribe: (listener) => {
          push = listener;
          return () => undefined;
        },
      },
    });
    const events = sseReader(await app.request('/events?agent=remote', { headers: bearer() }));
    await events.next();
    push({ type: 'run-completed', runId: 'run_elsewhere', agentName: 'other', output: 'no' });
    push({ type: 'run-completed', runId: 'run_elsewhere', agentName: 'remote', output: 'yes' });
    expect(await events.event()).toMatchObject({ type: 'run-completed', data: { agentName: 'remote', output: 'yes' } });
    await events.cancel();
  });

  it('needs the bearer token and validates its query', async () => {
    const h = harness();
    expect((await h.app.request('/events')).status).toBe(401);
    expect((await h.app.request(`/events?runId=${'x'.repeat(300)}`, { headers: bearer() })).status).toBe(400);
  });
});
