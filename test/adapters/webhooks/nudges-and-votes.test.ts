// Reminders, escalations and votes reach a webhook receiver: real HTTP to a loopback receiver, each delivery
// signed (Standard Webhooks, checked with the reference library), made from a runtime's own events.
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryStore, createRuntime, defineTool } from 'countersign';
import { createWebhookNotifier, type WebhookEvent } from 'countersign/webhooks';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, testClock } from '../../support/test-kit.js';
import { startReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../support/webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MINUTE = 60_000;

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

function verified(delivery: ReceivedDelivery): WebhookEvent {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  return new Webhook(SECRET).verify(delivery.body, headers) as WebhookEvent;
}

describe('webhooks: approval.reminder, approval.escalated and approval.voted', () => {
  it('delivers each nudge and each vote once, signed, with what the receiver needs to act on it', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const clock = testClock();
    const refund = defineTool({
      name: 'refund',
      description: 'Refund a customer',
      input: z.object({ cents: z.number().int() }),
      remindAfterMs: 10 * MINUTE,
      escalate: [{ afterMs: 15 * MINUTE, to: ['carol'] }],
      approvals: { required: 2 },
      execute: async () => 'refunded',
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'refund', args: { cents: 500 } }]),
    );
    const notifier = createWebhookNotifier({ url: receiver.url, secret: SECRET });
    const runtime = createRuntime({
      agents: [testAgent({ name: 'billing', model, tools: [refund], clock })],
      store: createMemoryStore(),
      clock,
      notifier,
    });

    const run = await runtime.start('billing', { input: 'refund', sessionId: 'chat-1' });
    const request = run.pendingApprovals[0]!;
    clock.advance(16 * MINUTE);
    await runtime.sweepExpired();
    // A second sweep finds nothing new to say.
    await runtime.sweepExpired();
    await runtime.respond(run.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      ...(request.signature === undefined ? {} : { signature: request.signature }),
    });
    await notifier.flush();

    const events = receiver.deliveries.map(verified);
    const nudgesAndVotes = events.filter(
      (event) => event.type !== 'approval.requested' && event.type !== 'approval.resolved',
    );
    expect(nudgesAndVotes.map((event) => event.type)).toEqual([
      'approval.reminder',
      'approval.escalated',
      'approval.voted',
    ]);
    const [reminder, escalated, voted] = nudgesAndVotes;
    expect(reminder!.data).toMatchObject({
      runId: run.runId,
      approvalId: request.approvalId,
      toolName: 'refund',
      sessionId: 'chat-1',
      reminder: 1,
    });
    expect(escalated!.data).toMatchObject({ runId: run.runId, approvalId: request.approvalId, step: 0, to: ['carol'] });
    expect(voted!.data).toMatchObject({
      runId: run.runId,
      approvalId: request.approvalId,
      vote: { by: 'alice', approved: true },
      tally: { approvals: 1, required: 2 },
    });
    // Each delivery has its own id, so a receiver can drop a retried one.
    expect(new Set(receiver.deliveries.map((delivery) => delivery.headers['webhook-id'])).size).toBe(
      receiver.deliveries.length,
    );
  });
});
