import type { ApprovalRequest, LinkClaim, Question } from '../index.js';
import { escapeHtml } from '../kit/index.js';
import { claimsParagraph, delegationParagraph, layout, stringifyArgs, warningList } from './link-pages.js';
import { questionFields, type QuestionFormState } from './question-form.js';

/**
 * The page an approve link of a question shows (`GET /links/:token`), and again with what was typed and each field's
 * problem after a refused answer: the question, its form, and an Answer button that POSTs it. Showing it changes
 * nothing; the answer is recorded once, when it fits.
 *
 * @example
 * const html = questionPage({ claim, request, question: request.question!, agentName: snapshot.agentName, action: `./${token}` });
 */
export function questionPage(input: {
  readonly claim: LinkClaim;
  readonly request: ApprovalRequest;
  readonly question: Question;
  readonly action: string;
  /** The run's agent, where the chain of a sub-agent's question starts. */
  readonly agentName: string;
  readonly state?: Omit<QuestionFormState, 'idPrefix'>;
}): string {
  const { claim, request, question } = input;
  const e = escapeHtml;
  const expires =
    request.expiresAt === undefined
      ? ''
      : `<p>This question expires at ${e(new Date(request.expiresAt).toISOString())}.</p>`;
  const refused =
    input.state?.issues === undefined || input.state.issues.length === 0
      ? ''
      : '<p class="warn" role="alert"><strong>Not recorded:</strong> correct the fields marked below and answer again.</p>';
  return layout(
    `Answer: ${request.description}`,
    `<h1>${e(request.description)}</h1>` +
      delegationParagraph(request, input.agentName) +
      claimsParagraph(request) +
      (request.reason ? `<p>Why you are asked: ${e(request.reason)}</p>` : '') +
      `<p>Run <code>${e(claim.runId)}</code>, question <code>${e(request.approvalId)}</code>.</p>` +
      warningList(request) +
      refused +
      `<form method="post" action="${e(input.action)}"><input type="hidden" name="form" value="answer">` +
      questionFields(question, { idPrefix: 'q', ...input.state }) +
      '<button type="submit" class="approve">Answer</button></form>' +
      `<details><summary>The request as it was made</summary><pre>${e(stringifyArgs(request.args))}</pre></details>` +
      expires +
      (claim.approvedBy === undefined
        ? ''
        : `<p>Recorded as answered by <strong>${e(claim.approvedBy)}</strong>.</p>`) +
      '<p><small>This link records one answer.</small></p>',
  );
}
