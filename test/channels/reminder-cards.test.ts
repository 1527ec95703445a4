// A channel built on the kit posts a reminder and an escalation as new cards, once each however often the events
// are delivered; a `{ channel }` escalation is posted only by the notifier of that name.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryStore, createRuntime, defineTool, type RunEvent } from 'countersign';
import {
  cardHead,
  channelSettings,
  createChannelNotifier,
  type ChannelDriver,
  type Markup,
} from 'countersign/channels';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, testClock } from '../support/test-kit.js';

const plain: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};

describe('reminder and escalation cards', () => {
  it('re-posts the card with "Still waiting" and "Escalated to", once per nudge, only on the named channel', async () => {
    const clock = testClock();
    const tool = defineTool({
      name: 'page_oncall',
      description: 'Page the on-call',
      input: z.object({}),
      remindAfterMs: 60_000,
      escalate: [{ afterMs: 60_000, to: { channel: 'pager' } }],
      execute: async () => 'paged',
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'page_oncall', args: {} }]),
    );
    const runtime = createRuntime({
      agents: [testAgent({ name: 'ops', model, tools: [tool], clock })],
      store: createMemoryStore({ clock }),
      clock,
      links: { secret: 'reminder-cards-secret-0123456789ab' },
    });
    const posted: Record<string, string[]> = { pager: [], other: [] };
    const driver = (name: 'pager' | 'other'): ChannelDriver<undefined> => ({
      name,
      async post(card) {
        posted[name]!.push(cardHead(card.request, card.agentName, plain, 500, card.nudge).split('\n')[0]!);
        return undefined;
      },
      async update() {},
    });
    const notifiers = [
      createChannelNotifier(driver('pager'), channelSettings({ runtime })),
      createChannelNotifier(driver('other'), channelSettings({ runtime })),
    ];
    const seen: RunEvent[] = [];
    runtime.subscribe((event) => {
      seen.push(event);
      for (const notifier of notifiers) void notifier.publish([event]);
    });
    await runtime.start('ops', { input: 'page' });
    clock.advance(60_000);
    await runtime.sweepExpired();
    // Delivered again (another instance, a stream's retry): nothing is posted twice.
    for (const notifier of notifiers)
      await notifier.publish(seen.filter((event) => event.type !== 'approval-requested'));
    await Promise.all(notifiers.map((notifier) => notifier.flush()));
    expect(posted['pager']).toEqual([
      'page_oncall wants to run for agent ops.',
      '⏰ Still waiting for a decision (reminder 1).',
      '📣 Escalated to this channel (pager): nobody has decided yet.',
    ]);
    expect(posted['other']).toEqual([
      'page_oncall wants to run for agent ops.',
      '⏰ Still waiting for a decision (reminder 1).',
    ]);
  });
});
