// countersign/ui's AI SDK binding read by the AI SDK's own client code (DefaultChatTransport over a real socket, then
// readUIMessageStream): a turn streams to an approval part in its documented state, the chat's answer continues the
// same message to the tool's output, a partial answer keeps the rest pending, and a reconnect replays nothing twice.
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatApprovalCard } from 'countersign/ui';
import { chatWorld, type ChatWorld } from '../support/chat-world.js';

type Message = UIMessage;

let world: ChatWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The AI SDK's transport for `user`, as useChat makes it. */
function transportOf(url: string, user = 'ana') {
  return new DefaultChatTransport<Message>({ api: `${url}/api/chat`, headers: { 'x-user': user } });
}

/** The last message readUIMessageStream builds from `stream`, continuing `message` when given. */
async function lastMessage(stream: ReadableStream<UIMessageChunk>, message?: Message): Promise<Message> {
  let last: Message | undefined;
  for await (const update of readUIMessageStream<Message>({ stream, ...(message ? { message } : {}) })) last = update;
  return last!;
}

const userMessage = (text: string, id = `u-${Math.random()}`): Message => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

const toolParts = (message: Message) => message.parts.filter((part) => part.type.startsWith('tool-')) as any[];

/** The assistant message with every approval part of `approvalIds` answered as the AI SDK's addToolApprovalResponse does. */
function answered(message: Message, approved: boolean, approvalIds?: readonly string[], reason?: string): Message {
  return {
    ...message,
    parts: message.parts.map((part: any) =>
      part.state === 'approval-requested' && (approvalIds === undefined || approvalIds.includes(part.approval.id))
        ? {
            ...part,
            state: 'approval-responded',
            approval: { ...part.approval, approved, ...(reason ? { reason } : {}) },
          }
        : part,
    ),
  };
}

describe('the AI SDK UI message stream, read by the AI SDK', () => {
  it('streams a turn to an approval part, then the chat approves and the tool runs once', async () => {
    world = await chatWorld({ decisionSecret: 'ui-chat-secret-0123456789abcdef' });
    const transport = transportOf(world.url);
    const user = userMessage(JSON.stringify([{ name: 'delete_file', args: { path: '/tmp/a' } }]));
    const first = await lastMessage(
      await transport.sendMessages({
        chatId: 'c1',
        messages: [user],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    const [pending] = (await world.runtime.pending()).items;
    expect(first.role).toBe('assistant');
    expect(first.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'On it.', state: 'done' });
    const [tool] = toolParts(first);
    expect(tool).toMatchObject({
      type: 'tool-delete_file',
      state: 'approval-requested',
      input: { path: '/tmp/a' },
      approval: { id: pending!.request.approvalId, signature: pending!.request.signature },
    });
    const card = first.parts.find((part) => part.type === 'data-countersign-approval') as { data: ChatApprovalCard };
    expect(card.data).toMatchObject({
      toolName: 'delete_file',
      description: 'Delete /tmp/a?',
      offered: { approve: true, deny: true },
    });
    expect(pending!.sessionId).toMatch(/^chat:/);
    expect(world.deleted).toEqual([]);

    const approvedMessage = answered(first, true);
    const second = await lastMessage(
      await transport.sendMessages({
        chatId: 'c1',
        messages: [user, approvedMessage],
        trigger: 'submit-message',
        messageId: first.id,
        abortSignal: undefined,
      }),
      approvedMessage,
    );
    expect(second.id).toBe(first.id);
    expect(toolParts(second)).toEqual([
      expect.objectContaining({ state: 'output-available', output: 'deleted /tmp/a', input: { path: '/tmp/a' } }),
    ]);
    expect(second.parts.filter((part) => part.type === 'text').map((part: any) => part.text)).toEqual([
      'On it.',
      'Done: deleted /tmp/a',
    ]);
    expect(second.parts.find((part) => part.type === 'data-countersign-decision')).toMatchObject({
      data: { outcome: 'approved', by: 'ana' },
    });
    expect(world.deleted).toEqual(['/tmp/a']);
  });
});
