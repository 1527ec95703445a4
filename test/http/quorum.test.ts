// A decision posted to the app on a request several people must approve is a vote: the answer says so and how
// many more approvals are needed, in every resume mode, and the OpenAPI document describes the field.
import { describe, expect, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { harness, json, startPaused, TOKEN } from './harness.js';

const approvals = { required: 2, from: ['ana', 'bo', 'cy'] };

async function read(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('quorum over HTTP', () => {
  for (const resumeMode of ['inline', 'record', 'enqueue'] as const) {
    it(`a first approval answers with the vote and how many more are needed; the second settles it (${resumeMode})`, async () => {
      const h = harness({ approvals });
      const { runId, approvalId } = await startPaused(h);
      // Enqueue mode answers from a runtime that hands the run to a worker queue (here, one that drops it).
      const front =
        resumeMode === 'enqueue'
          ? createRuntime({
              agents: [h.runtime.agent('files')],
              store: h.store,
              queue: { enqueue: async () => undefined },
            })
          : h.runtime;
      const app = createApprovalApp(front, { bearerToken: TOKEN, resumeMode });
      const path = `/runs/${runId}/approvals/${approvalId}`;
      const first = await read(await app.request(path, json({ approved: true, approvedBy: 'ana' })));
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        status: 'awaitingApproval',
        duplicate: false,
        vote: { recorded: true, approvals: 1, required: 2, remaining: 1 },
      });
      const again = await read(await app.request(path, json({ approved: true, approvedBy: 'ana' })));
      expect(again.body['vote']).toEqual({ recorded: false, approvals: 1, required: 2, remaining: 1 });
      const second = await read(await app.request(path, json({ approved: true, approvedBy: 'bo' })));
      expect(second.body['vote']).toEqual({ recorded: true, approvals: 2, required: 2, remaining: 0 });
      if (resumeMode === 'inline') expect(h.executed).toEqual(['/tmp/x']);
    });
  }

  it('a batch answers each item with its vote; a request one person decides has no vote field', async () => {
    const h = harness({ approvals });
    const { runId, approvalId } = await startPaused(h);
    const batch = await read(
      await h.app.request(
        `/runs/${runId}/approvals`,
        json({ decisions: [{ approvalId, approved: true, approvedBy: 'cy' }] }),
      ),
    );
    expect(batch.body['results']).toEqual([
      { approvalId, ok: true, duplicate: false, vote: { recorded: true, approvals: 1, required: 2, remaining: 1 } },
    ]);

    const single = harness();
    const paused = await startPaused(single);
    const decided = await read(
      await single.app.request(
        `/runs/${paused.runId}/approvals/${paused.approvalId}`,
        json({ approved: true, approvedBy: 'ana' }),
      ),
    );
    expect(decided.body['status']).toBe('completed');
    expect(decided.body).not.toHaveProperty('vote');
  });

  it('the OpenAPI document describes the vote on a decision answer', async () => {
    const h = harness();
    const doc = (await (await h.app.request('/openapi.json')).json()) as Record<string, any>;
    const vote = doc['components'].schemas['DecisionAnswer'].properties['vote'];
    expect(vote.properties).toHaveProperty('remaining');
    expect(vote.description).toMatch(/several approvals/);
  });
});
