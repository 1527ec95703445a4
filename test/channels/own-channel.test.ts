// "Your own channel" in docs/channels/index.md: a driver with post and update is a whole channel on the kit.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryStore, createRuntime, defineTool } from 'countersign';
import {
  answerClick,
  channelSettings,
  createChannelNotifier,
  outcomeLine,
  type ChannelDriver,
  type Markup,
} from 'countersign/channels';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from '../support/test-kit.js';

const plainMarkup: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};

describe('a channel of your own on countersign/channels', () => {
  it('posts one card per approval, updates it when decided, and decides a click with the shared wording', async () => {
    const tool = defineTool({
      name: 'page_oncall',
      description: 'Page the on-call',
      input: z.object({ team: z.string() }),
      needsApproval: true,
      execute: async () => 'paged',
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('done')
        : toolCallTurn([{ name: 'page_oncall', args: { team: 'db' } }]),
    );
    const runtime = createRuntime({
      agents: [testAgent({ name: 'ops', model, tools: [tool] })],
      store: createMemoryStore(),
      links: { secret: 'own-channel-secret-0123456789abcdef' },
    });
    const pager = { asked: [] as { id: string; text: string; approve: string }[], edits: [] as string[] };
    const driver: ChannelDriver<{ id: string }> = {
      name: 'pager',
      async post(card) {
        const id = `p${pager.asked.length}`;
        pager.asked.push({ id, text: card.request.description, approve: card.tokens.approve! });
        return { id };
      },
      async update({ ref, outcome }) {
        if (ref) pager.edits.push(`${ref.id}: ${outcomeLine(outcome, plainMarkup)}`);
      },
    };
    const notifier = createChannelNotifier(driver, channelSettings({ runtime }));
    runtime.subscribe((event) => void notifier.publish([event]));

    const run = await runtime.start('ops', { input: 'page the db team' });
    await notifier.flush();
    await notifier.publish([
      { type: 'approval-requested', runId: run.runId, agentName: 'ops', request: run.pendingApprovals[0]! },
    ]);
    await notifier.flush();
    expect(pager.asked).toHaveLength(1);

    const reply = await answerClick(runtime, {
      token: pager.asked[0]!.approve,
      clicker: 'pager:alice',
      channel: 'Pager',
      markup: plainMarkup,
      resumeMode: 'inline',
      resumeTimeoutMs: 5_000,
      onError: () => {},
    });
    expect(reply.text).toBe('Approved by pager:alice: page_oncall, run is completed.');
    await notifier.flush();
    expect(pager.edits).toEqual(['p0: ✅ Approved by pager:alice.', 'p0: ▶️ page_oncall ran: paged']);
  });
});
