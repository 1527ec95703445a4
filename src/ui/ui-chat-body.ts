import { z } from 'zod';
import type { ChatAnswer } from './chat-answers.js';

const MAX_TEXT = 100_000;

const part = z.looseObject({ type: z.string().max(200) });

const approvalPart = z.looseObject({
  type: z.string().regex(/^(tool-.+|dynamic-tool)$/),
  state: z.literal('approval-responded'),
  approval: z.looseObject({
    id: z.string().min(1).max(200),
    approved: z.boolean(),
    reason: z.string().max(2_000).optional(),
    signature: z.string().max(500).optional(),
  }),
});

/** What `useChat`'s default transport POSTs: the chat id and its messages; countersign reads only the last one. */
export const uiChatBody = z.looseObject({
  id: z.string().min(1).max(200),
  messages: z
    .array(
      z.looseObject({
        id: z.string().max(200).optional(),
        role: z.enum(['system', 'user', 'assistant']),
        parts: z.array(part).max(1_000),
      }),
    )
    .min(1)
    .max(10_000),
  /** Extra of countersign's card: the scope of an approval ("Approve for this session"), by approval id. */
  countersign: z
    .strictObject({ scopes: z.record(z.string().max(200), z.enum(['once', 'run', 'session'])).optional() })
    .optional(),
});

export type UIChatBody = z.output<typeof uiChatBody>;

/** What the last message of a POST asks: a new turn (a user's text), or answers to the cards of the last turn. */
export type UIChatAsk =
  | { readonly kind: 'turn'; readonly text: string }
  | { readonly kind: 'answers'; readonly answers: ChatAnswer[] };

/**
 * The ask of `body`, from its last message only: the rest of the history the client sent is never read (the server's
 * run holds the conversation), so nothing a client changes in it reaches the model or a decision. An answer carries
 * only the verdict, the reason, the signature echo and the scope the card asked for: arguments come from the run.
 */
export function uiChatAsk(body: UIChatBody): UIChatAsk | undefined {
  const last = body.messages.at(-1)!;
  if (last.role === 'user') {
    const text = last.parts
      .flatMap((item) => (item.type === 'text' && typeof item['text'] === 'string' ? [item['text']] : []))
      .join('\n');
    return text.trim() === '' || text.length > MAX_TEXT ? undefined : { kind: 'turn', text };
  }
  if (last.role !== 'assistant') return undefined;
  const answers: ChatAnswer[] = [];
  for (const item of last.parts) {
    const parsed = approvalPart.safeParse(item);
    if (!parsed.success) continue;
    const { id, approved, reason, signature } = parsed.data.approval;
    const scope = body.countersign?.scopes?.[id];
    answers.push({
      approvalId: id,
      approved,
      ...(reason === undefined ? {} : { reason }),
      ...(signature === undefined ? {} : { signature }),
      ...(scope === undefined ? {} : { scope }),
    });
  }
  return answers.length === 0 ? undefined : { kind: 'answers', answers };
}
