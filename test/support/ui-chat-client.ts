// The AI SDK's own client code, as useChat drives it: its default transport (POST and the reconnect GET) and
// readUIMessageStream, plus addToolApprovalResponse's change to a message.
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';

export type Message = UIMessage;

export interface ChatClient {
  readonly transport: DefaultChatTransport<Message>;
  /** Sends `messages` as useChat does and reads the answer into the last message (continuing `continues`). */
  send(messages: readonly Message[], continues?: Message): Promise<Message>;
  /**
   * useChat's resumeStream: the reconnect GET, once its answer began (so the server has looked at the chat); `read`
   * reads it into a message, undefined on a 204.
   */
  reconnect(signal?: AbortSignal): Promise<{ read(): Promise<Message | undefined> }>;
}

/** The last message readUIMessageStream builds from `stream`, continuing `message` when given. */
export async function lastMessage(stream: ReadableStream<UIMessageChunk>, message?: Message): Promise<Message> {
  let last: Message | undefined;
  for await (const update of readUIMessageStream<Message>({ stream, ...(message ? { message } : {}) })) last = update;
  return last!;
}

export function chatClient(url: string, chatId: string, user = 'ana'): ChatClient {
  const transport = new DefaultChatTransport<Message>({ api: `${url}/api/chat`, headers: { 'x-user': user } });
  return {
    transport,
    async send(messages, continues) {
      const stream = await transport.sendMessages({
        chatId,
        messages: [...messages],
        trigger: 'submit-message',
        messageId: continues?.id,
        abortSignal: undefined,
      });
      return lastMessage(stream, continues);
    },
    async reconnect(signal) {
      const stream = await transport.reconnectToStream({ chatId, ...(signal ? { abortSignal: signal } : {}) });
      return { read: async () => (stream === null ? undefined : lastMessage(stream)) };
    },
  };
}

export const userMessage = (text: string): Message => ({
  id: `u-${Math.random().toString(36).slice(2)}`,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** A user message asking the scripted chat model for these calls. */
export const asking = (...calls: { name: string; args: unknown }[]) => userMessage(JSON.stringify(calls));

export const toolParts = (message: Message) => message.parts.filter((part) => part.type.startsWith('tool-')) as any[];
export const textsOf = (message: Message) =>
  message.parts.filter((part) => part.type === 'text').map((part: any) => part.text as string);
export const dataParts = (message: Message, name: string) =>
  message.parts.filter((part) => part.type === `data-${name}`).map((part: any) => part.data);

/** `message` after addToolApprovalResponse answered its approvals `approvalIds` (all when absent). */
export function answered(
  message: Message,
  approved: boolean,
  options: { approvalIds?: readonly string[]; reason?: string } = {},
): Message {
  return {
    ...message,
    parts: message.parts.map((part: any) =>
      part.state === 'approval-requested' &&
      (options.approvalIds === undefined || options.approvalIds.includes(part.approval.id))
        ? {
            ...part,
            state: 'approval-responded',
            approval: { ...part.approval, approved, ...(options.reason ? { reason: options.reason } : {}) },
          }
        : part,
    ),
  };
}
