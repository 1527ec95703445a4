// The chat history the cycle benchmarks start from, shared by bench/core.bench.ts and bench/peers so
// every system is measured over the same conversation.
import type { Message } from 'countersign';

/** A chat history of `count` messages, about 265 bytes each (DESIGN.md's 1,000-message snapshot is about 264 KB), with tool calls and results mixed in. */
export function history(count: number): Message[] {
  const messages: Message[] = [
    {
      role: 'system',
      content: 'You are an operations assistant. Ask before changing anything in production; summarise what you did.',
    },
  ];
  for (let index = 1; messages.length < count; index++) {
    messages.push({
      role: 'user',
      content: `Request ${index}: please check the status of order ${10_000 + index} for customer ACME-${index % 97} and tell me whether the refund of ${(index * 7) % 500} EUR went through yesterday. The customer says the money has not arrived on their card yet.`,
    });
    if (index % 4 === 0 && messages.length + 2 < count) {
      messages.push({
        role: 'assistant',
        content: 'Let me look that up.',
        toolCalls: [
          {
            id: `hist_${index}`,
            name: 'get_order',
            args: { orderId: `${10_000 + index}`, include: ['payments', 'refunds'] },
          },
        ],
      });
      messages.push({
        role: 'tool',
        toolCallId: `hist_${index}`,
        content: JSON.stringify({
          orderId: `${10_000 + index}`,
          status: 'shipped',
          refunds: [{ amount: (index * 7) % 500, currency: 'EUR', state: 'settled', at: '2026-01-14T10:22:31.000Z' }],
        }),
      });
    }
    if (messages.length < count) {
      messages.push({
        role: 'assistant',
        content: `Order ${10_000 + index} is shipped and the refund of ${(index * 7) % 500} EUR was settled on 14 January at 10:22 UTC; card refunds usually take three to five business days to show up. Anything else I can check for ACME-${index % 97}?`,
      });
    }
  }
  return messages.slice(0, count);
}

/**
 * The same conversation as `history(count)`, as a reasoning model and a provider adapter leave it: every assistant
 * message carries its reasoning (text and a signature) and usage, every tool result its tool-result part.
 */
export function historyWithParts(count: number): Message[] {
  return history(count).map((message) => {
    if (message.role === 'assistant') {
      return {
        ...message,
        // The text stays in `content`: a text part only where a provider split it among other parts.
        parts: [
          {
            type: 'reasoning',
            text: 'The customer asks about a refund; look the order up before answering.',
            signature: 'EqQBCgIYAhIMbenchSignature0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ',
          },
        ],
        usage: { inputTokens: 1200, outputTokens: 80, reasoningTokens: 40 },
        finishReason: message.toolCalls ? 'tool-calls' : 'stop',
      };
    }
    if (message.role === 'tool')
      return {
        ...message,
        parts: [{ type: 'tool-result', toolCallId: message.toolCallId!, toolName: 'get_order', outcome: 'ok' }],
      };
    return message;
  });
}
