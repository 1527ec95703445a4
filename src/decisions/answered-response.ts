// A response that answers a question (`request.question`): the answer checked against the form, then carried as the
// call's edited arguments (`{ ...args, answer }`), so it is signed, gated and recorded exactly as an edit is.
import { ConfigError, InvalidAnswerError } from '../errors.js';
import { callOfId } from '../run/current-tool-calls.js';
import { answerIssues } from '../run/question.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { ApprovalResponse } from '../run/types.js';

const WHERE = 'withApprovalResponse';

/** The arguments of the call `toolCallId`, as the model (or whoever added the call) asked for them. */
function callArgs(snapshot: AgentSnapshot, toolCallId: string | undefined): Record<string, unknown> {
  const args = callOfId(snapshot, toolCallId)?.args;
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
}

/** Refusals of an answer that does not go with this response or this request. */
function checkAnswerFits(snapshot: AgentSnapshot, response: ApprovalResponse): void {
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId);
  const question = request?.question;
  if (response.answer === undefined) {
    if (question !== undefined && response.approved)
      throw new ConfigError(
        `${WHERE}: approval ${response.approvalId} is a question; approve it with its answer ({ approved: true, answer: { ${question.fields[0]!.name}: … } }), or deny it to decline.`,
      );
    return;
  }
  if (!response.approved)
    throw new ConfigError(`${WHERE}: an answer goes with approved: true; deny without one to decline the question.`);
  if (response.args !== undefined)
    throw new ConfigError(`${WHERE}: send the answer or edited args, not both; a question is answered with answer.`);
  if (request !== undefined && question === undefined)
    throw new ConfigError(`${WHERE}: approval ${response.approvalId} asks no question; leave answer out.`);
  if (question === undefined) return;
  if ((response.scope ?? 'once') !== 'once')
    throw new ConfigError(`${WHERE}: an answer is for this question only; send scope 'once' (or leave it out).`);
  const issues = answerIssues(question, response.answer);
  if (issues.length > 0) throw new InvalidAnswerError(response.approvalId, issues);
}

/**
 * `response` with its answer as the call's edited arguments; the response itself when it carries none. A repeat of a
 * recorded answer (the request is no longer pending) becomes the same arguments, so it is found identical.
 */
export function answeredResponse(snapshot: AgentSnapshot, response: ApprovalResponse): ApprovalResponse {
  checkAnswerFits(snapshot, response);
  if (response.answer === undefined) return response;
  const toolCallId =
    snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId)?.toolCallId ??
    snapshot.audit.find((entry) => entry.approvalId === response.approvalId)?.toolCallId;
  const { answer, ...rest } = response;
  return { ...rest, args: { ...callArgs(snapshot, toolCallId), answer } };
}
