// countersign/ui's AI SDK binding read by the AI SDK's own client code (DefaultChatTransport over a real socket, then
// readUIMessageStream): a turn streams to an approval part in its documented state, the chat's answer continues the
// same message to the tool's output, a partial answer keeps the rest pending, a denial and an expiry are denials with
// their reason, a decision made elsewhere reaches a reconnected chat, and a reconnect replays nothing twice.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatApprovalCard } from 'countersign/ui';
import { chatWorld, type ChatWorld } from '../support/chat-world.js';
import { testClock } from '../support/test-kit.js';
import { answered, asking, chatClient, dataParts, textsOf, toolParts, userMessage } from '../support/ui-chat-client.js';

let world: ChatWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const remove = (path: string) => ({ name: 'delete_file', args: { path } });

describe('the AI SDK UI message stream, read by the AI SDK', () => {
  it('streams a turn to an approval part, then the chat approves and the tool runs once', async () => {
    world = await chatWorld({ decisionSecret: 'ui-chat-secret-0123456789abcdef' });
    const client = chatClient(world.url, 'c1');
    const user = asking(remove('/tmp/a'));
    const first = await client.send([user]);
    const [pending] = (await world.runtime.pending()).items;
    expect(first.role).toBe('assistant');
    expect(first.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'On it.', state: 'done' });
    expect(toolParts(first)).toEqual([
      expect.objectContaining({
        type: 'tool-delete_file',
        state: 'approval-requested',
        input: { path: '/tmp/a' },
        approval: { id: pending!.request.approvalId, signature: pending!.request.signature },
      }),
    ]);
    const [card] = dataParts(first, 'countersign-approval') as ChatApprovalCard[];
    expect(card).toMatchObject({ toolName: 'delete_file', description: 'Delete /tmp/a?' });
    expect(card!.offered).toMatchObject({ approve: true, deny: true, wider: { scope: 'session' } });
    expect(pending!.sessionId).toMatch(/^chat:/);
    expect(pending!.requestedBy).toBe('ana');
    expect(world.deleted).toEqual([]);

    const approvedMessage = answered(first, true);
    const second = await client.send([user, approvedMessage], approvedMessage);
    expect(second.id).toBe(first.id);
    expect(toolParts(second)).toEqual([
      expect.objectContaining({ state: 'output-available', output: 'deleted /tmp/a', input: { path: '/tmp/a' } }),
    ]);
    expect(textsOf(second)).toEqual(['On it.', 'Done: deleted /tmp/a']);
    expect(dataParts(second, 'countersign-decision')).toEqual([
      expect.objectContaining({ outcome: 'approved', by: 'ana' }),
    ]);
    expect(world.deleted).toEqual(['/tmp/a']);

    // The next turn carries the conversation the server holds.
    const third = await client.send([user, second, userMessage('thanks')]);
    expect(textsOf(third)).toEqual(['You said: thanks']);
  });

  it('answers one of three and keeps the other two pending, unlike the AI SDK loop', async () => {
    world = await chatWorld();
    const client = chatClient(world.url, 'c-partial');
    const user = asking(remove('/a'), remove('/b'), remove('/c'));
    const first = await client.send([user]);
    const ids = toolParts(first).map((part) => part.approval.id as string);
    expect(toolParts(first).map((part) => part.state)).toEqual(Array(3).fill('approval-requested'));

    const one = answered(first, true, { approvalIds: [ids[0]!] });
    const afterOne = await client.send([user, one], one);
    expect(toolParts(afterOne).map((part) => part.state)).toEqual([
      'approval-responded',
      'approval-requested',
      'approval-requested',
    ]);
    const stillPending = (await world.runtime.pending()).items.map((item) => item.request.approvalId);
    expect(stillPending.sort()).toEqual(ids.slice(1).sort());
    expect(world.deleted).toEqual([]);

    // The client resends its first answer with the others (its history): recorded once, not refused.
    const rest = answered(afterOne, false, { approvalIds: ids.slice(1), reason: 'only /a' });
    const done = await client.send([user, rest], rest);
    expect(toolParts(done).map((part) => part.state)).toEqual(['output-available', 'output-denied', 'output-denied']);
    expect(dataParts(done, 'countersign-decision').map((decision) => [decision.outcome, decision.reason])).toEqual([
      ['approved', undefined],
      ['denied', 'only /a'],
      ['denied', 'only /a'],
    ]);
    expect(world.deleted).toEqual(['/a']);
  });

  it('shows a denial with its reason, and an expiry as a denial with reason expired', async () => {
    const clock = testClock();
    world = await chatWorld({ clock, approvalTtlMs: 60_000 });
    const client = chatClient(world.url, 'c-deny');
    const user = asking(remove('/keep'));
    const first = await client.send([user]);
    const denied = answered(first, false, { reason: 'keep it' });
    const afterDeny = await client.send([user, denied], denied);
    expect(toolParts(afterDeny)[0]).toMatchObject({ state: 'output-denied' });
    expect(dataParts(afterDeny, 'countersign-decision')[0]).toMatchObject({ outcome: 'denied', reason: 'keep it' });

    const expiring = chatClient(world.url, 'c-expire');
    const waiting = await expiring.send([asking(remove('/late'))]);
    const card = dataParts(waiting, 'countersign-approval')[0] as ChatApprovalCard;
    expect(card.expiresAt).toBe(clock() + 60_000);
    const watching = await expiring.reconnect();
    clock.advance(60_001);
    await world.runtime.sweepExpired();
    const expired = (await watching.read())!;
    expect(toolParts(expired)[0]).toMatchObject({ state: 'output-denied' });
    expect(dataParts(expired, 'countersign-decision')[0]).toMatchObject({ outcome: 'expired' });
    expect(world.deleted).toEqual([]);
  });

  it('a decision made elsewhere reaches the open chat, and a reconnect replays the message once', async () => {
    world = await chatWorld();
    const client = chatClient(world.url, 'c-elsewhere');
    const first = await client.send([asking(remove('/x'))]);

    // Reconnecting mid-wait (a reload) gives the same message whole: the same id, each part once.
    const replay = await client.reconnect();
    const events: string[] = [];
    const heard = new Promise<void>((resolve) => {
      const stop = world!.runtime.subscribe((event) => {
        events.push(event.type);
        if (event.type === 'run-completed') {
          stop();
          resolve();
        }
      });
    });
    const [pending] = (await world.runtime.pending()).items;
    await world.runtime.decide(pending!.runId, {
      approvalId: pending!.request.approvalId,
      approved: true,
      approvedBy: 'console:bo',
    });
    await heard;
    const replayed = (await replay.read())!;
    expect(replayed.id).toBe(first.id);
    expect(toolParts(replayed)).toEqual([expect.objectContaining({ state: 'output-available', output: 'deleted /x' })]);
    expect(textsOf(replayed)).toEqual(['On it.', 'Done: deleted /x']);
    expect(dataParts(replayed, 'countersign-decision')).toEqual([
      expect.objectContaining({ outcome: 'approved', by: 'console:bo' }),
    ]);
    expect(world.deleted).toEqual(['/x']);
    // Nothing is under way any more: the reconnect says so (204) instead of replaying.
    expect(await (await client.reconnect()).read()).toBeUndefined();
  });
});
