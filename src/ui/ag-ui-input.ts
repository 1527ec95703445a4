import { z } from 'zod';
import type { ChatAnswer } from './chat-answers.js';

const MAX_TEXT = 100_000;

const text = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string().max(100), text: z.string().optional() })).max(1_000),
]);

/** AG-UI's `RunAgentInput` as countersign reads it: the thread, the client's run id, the last message and `resume`. */
export const agUiInput = z.looseObject({
  threadId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  messages: z
    .array(z.looseObject({ id: z.string().max(200).optional(), role: z.string().max(50), content: text.optional() }))
    .max(10_000),
  resume: z
    .array(
      z.strictObject({
        interruptId: z.string().min(1).max(200),
        status: z.enum(['resolved', 'cancelled']),
        payload: z
          .looseObject({
            approved: z.boolean(),
            reason: z.string().max(2_000).optional(),
            args: z.unknown().optional(),
            scope: z.enum(['once', 'run', 'session']).optional(),
          })
          .optional(),
        metadata: z.looseObject({ signature: z.string().max(500).optional() }).optional(),
      }),
    )
    .max(100)
    .optional(),
  forwardedProps: z.unknown().optional(),
});

export type AgUiInput = z.output<typeof agUiInput>;

/**
 * What a run input asks: answers (`resume`), a new turn (a last user message), or to see the thread again (a
 * reconnect; with `watch`, a waiting run is followed until it moves on, decided on whatever surface).
 */
export type AgUiAsk =
  | { readonly kind: 'answers'; readonly answers: ChatAnswer[] }
  | { readonly kind: 'turn'; readonly text: string }
  | { readonly kind: 'reconnect'; readonly watch: boolean };

/**
 * The ask of `input`. A resume entry is a proposal: `resolved` with `payload.approved` (and a reason, an edit of the
 * arguments, a scope), `cancelled` a dismissal; its signature echo is `metadata.signature`. Messages other than the
 * last are never read.
 */
export function agUiAsk(input: AgUiInput): AgUiAsk | undefined {
  if (input.resume !== undefined && input.resume.length > 0) {
    const answers: ChatAnswer[] = [];
    for (const entry of input.resume) {
      const signature = entry.metadata?.signature;
      const echo = signature === undefined ? {} : { signature };
      if (entry.status === 'cancelled') {
        answers.push({ approvalId: entry.interruptId, approved: false, dismissed: true, ...echo });
        continue;
      }
      if (entry.payload === undefined) return undefined;
      const { approved, reason, args, scope } = entry.payload;
      answers.push({
        approvalId: entry.interruptId,
        approved,
        ...echo,
        ...(reason === undefined ? {} : { reason }),
        ...(args === undefined ? {} : { args }),
        ...(scope === undefined ? {} : { scope }),
      });
    }
    return { kind: 'answers', answers };
  }
  const last = input.messages.at(-1);
  if (last?.role !== 'user') return { kind: 'reconnect', watch: watchAsked(input.forwardedProps) };
  const content =
    typeof last.content === 'string'
      ? last.content
      : (last.content ?? [])
          .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
          .join('\n');
  return content.trim() === '' || content.length > MAX_TEXT ? undefined : { kind: 'turn', text: content };
}

/** Whether a reconnect asks to wait for a waiting run to move (`forwardedProps: { countersign: { watch: true } }`). */
function watchAsked(forwarded: unknown): boolean {
  const countersign = (forwarded as { countersign?: { watch?: unknown } } | null | undefined)?.countersign;
  return countersign?.watch === true;
}
