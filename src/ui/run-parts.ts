import { presentArgs, type AgentSnapshot, type AuditEntry, type PresentOptions } from '../index.js';
import { approvalCard, chatDecision, type ChatApprovalCard, type ChatDecision } from './approval-card.js';

/**
 * One piece of what a run said and did since its user's message, in order, for a chat: the same pieces whichever
 * wire format carries them. `key` names the piece and its state, so a stream sends each once.
 */
export type RunPart =
  | { readonly kind: 'reasoning' | 'text'; readonly key: string; readonly id: string; readonly text: string }
  | {
      readonly kind: 'tool-call';
      readonly key: string;
      readonly toolCallId: string;
      readonly toolName: string;
      /** The arguments as the person sees them (the request's display copy, or the agent's redaction of them). */
      readonly input: unknown;
    }
  | { readonly kind: 'approval'; readonly key: string; readonly card: ChatApprovalCard }
  | { readonly kind: 'decision'; readonly key: string; readonly decision: ChatDecision }
  | { readonly kind: 'tool-result'; readonly key: string; readonly toolCallId: string; readonly output: string }
  | { readonly kind: 'tool-denied'; readonly key: string; readonly toolCallId: string; readonly reason?: string };

/** The id of the text (or reasoning) of the run's `turn`-th answer, the same for its live deltas and its record. */
export function answerPartId(runId: string, kind: 'text' | 'reasoning', turn: number): string {
  return `${runId}:${kind}:${turn}`;
}

/** Where the run's own messages start: after the last user message of its input. */
export function firstOwnMessage(run: AgentSnapshot): number {
  for (let index = run.messages.length - 1; index >= 0; index--)
    if (run.messages[index]!.role === 'user') return index + 1;
  return 0;
}

/** How many answers the model gave in the run so far (its `model-delta` events count `turn` the same way). */
export function ownTurns(run: AgentSnapshot): number {
  return run.messages.slice(firstOwnMessage(run)).filter((message) => message.role === 'assistant').length;
}

/** The pieces of `run` since its user's message (see `RunPart`), its calls' arguments shown with `display`. */
export function runParts(run: AgentSnapshot, display: PresentOptions | undefined): RunPart[] {
  const parts: RunPart[] = [];
  const decided = new Map<string, AuditEntry>();
  for (const entry of run.audit) decided.set(entry.toolCallId, entry);
  const pending = new Map(run.pendingApprovals.map((request) => [request.toolCallId, request]));
  const results = new Map<string, string>();
  const first = firstOwnMessage(run);
  for (const message of run.messages.slice(first))
    if (message.role === 'tool' && message.toolCallId !== undefined) results.set(message.toolCallId, message.content);
  let turn = 0;
  for (const message of run.messages.slice(first)) {
    if (message.role !== 'assistant') continue;
    turn++;
    const reasoning = (message.parts ?? []).flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
    if (reasoning !== '') {
      const id = answerPartId(run.runId, 'reasoning', turn);
      parts.push({ kind: 'reasoning', key: id, id, text: reasoning });
    }
    if (message.content !== '') {
      const id = answerPartId(run.runId, 'text', turn);
      parts.push({ kind: 'text', key: id, id, text: message.content });
    }
    for (const call of message.toolCalls ?? []) {
      const request = pending.get(call.id);
      const input = request === undefined ? presentArgs(call.args, display).display : request.args;
      parts.push({ kind: 'tool-call', key: `call:${call.id}`, toolCallId: call.id, toolName: call.name, input });
      const entry = decided.get(call.id);
      if (request !== undefined) {
        const card = approvalCard(run, request);
        parts.push({ kind: 'approval', key: `approval:${request.approvalId}:${card.quorum?.approvals ?? 0}`, card });
      } else if (entry?.approvalId !== undefined) {
        const decision = chatDecision({ ...entry, approvalId: entry.approvalId });
        parts.push({ kind: 'decision', key: `decision:${entry.approvalId}`, decision });
      }
      if (entry?.decision === 'denied') {
        const reason = entry.source === 'expiry' ? 'expired' : entry.reason;
        parts.push({
          kind: 'tool-denied',
          key: `denied:${call.id}`,
          toolCallId: call.id,
          ...(reason === undefined ? {} : { reason }),
        });
      } else if (results.has(call.id)) {
        parts.push({
          kind: 'tool-result',
          key: `result:${call.id}`,
          toolCallId: call.id,
          output: results.get(call.id)!,
        });
      }
    }
  }
  return parts;
}
