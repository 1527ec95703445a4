import { presentArgs, type PresentOptions, type AgentSnapshot } from '../../index.js';
import type { ArgsEdit } from './audit-history.js';

/**
 * What an approver's edit of approval `approvalId` changed, as the history shows it: the call's arguments as the model
 * asked for them and as edited, both as display copies (`display`, the agent's settings: redacted, escaped, cut), so
 * the history never shows more than the card did. Undefined when the run no longer holds the call.
 *
 * @example
 * const edit = argsEdit(recorded.snapshot, approvalId, { path: '/tmp/b' }, agent.settings.display);
 */
export function argsEdit(
  run: AgentSnapshot,
  approvalId: string,
  edited: unknown,
  display: PresentOptions,
): ArgsEdit | undefined {
  const toolCallId = run.audit.find((entry) => entry.approvalId === approvalId)?.toolCallId;
  const call = run.messages
    .flatMap((message) => message.toolCalls ?? [])
    .find((candidate) => candidate.id === toolCallId);
  if (call === undefined) return undefined;
  return { before: presentArgs(call.args, display).display, after: presentArgs(edited, display).display };
}
