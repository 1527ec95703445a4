// One pending approval as the console shows it: a card with what will run, why it asks, and the forms that decide it.
import { annotationBadges, type ApprovalRequest, type PendingApprovalEntry, type Question } from '../../index.js';
import { decisionChoices, type DecisionChoices, escapeHtml, htmlMarkup, votesLine } from '../../kit/index.js';
import { delegationParagraph, warningList } from '../link-pages.js';
import { questionFields } from '../question-form.js';
import { argsHtml } from './args-view.js';
import { timeHtml } from './time-html.js';
import type { TurnContext } from './turn-context.js';

/** What a card offers and shows beyond its entry. */
export interface CardOptions {
  readonly csrf: string;
  readonly runPending: readonly ApprovalRequest[];
  /** Offer Edit arguments (default true; never to a session an inbox link signed in, as the inbox offers none). */
  readonly edit?: boolean;
  /** What led to the call (a token session's cards; an inbox session's show none). */
  readonly context?: TurnContext | undefined;
  /** Offer Cancel run once the card is approved (default true; never to an inbox session, which stops no run). */
  readonly cancel?: boolean;
}

const e = escapeHtml;

/** The votes so far and who may still vote, in the words every channel uses; '' for a request one person decides. */
function votesParagraph(request: ApprovalRequest, requestedBy: string | undefined): string {
  const line = votesLine(request, htmlMarkup, requestedBy, '');
  return line === '' ? '' : `<p class="votes">${line}</p>`;
}

function badges(request: ApprovalRequest): string {
  const connector =
    request.connector === undefined ? '' : `<span class="badge">connector ${e(request.connector)}</span>`;
  return (
    connector +
    annotationBadges(request.annotations)
      .map((badge) => `<span class="badge${badge === 'destructive' ? ' destructive' : ''}">${e(badge)}</span>`)
      .join('')
  );
}

/**
 * The button that approves beyond this call, as every surface offers it (`decisionChoices`): none on a quorum request
 * (each approval there is one vote) or where the request's decisions offer no wider scope, for this session with its
 * optional bounds (a grant) when the run has a session, else for this run, unless the run makes no other call.
 */
function widerApproval(wider: DecisionChoices['wider']): string {
  if (wider === undefined) return '';
  if (wider.scope === 'run')
    return '<button type="submit" name="decision" value="run" data-action="approve-run">Approve for this run</button>';
  return (
    '<button type="submit" name="decision" value="session" data-action="approve-session">Approve for this session</button>' +
    '<fieldset class="grant"><legend>Bounds of Approve for this session (optional)</legend>' +
    '<label>For minutes<input type="number" name="ttlMinutes" min="1" max="10080" inputmode="numeric"></label>' +
    '<label>Times<input type="number" name="uses" min="1" max="1000000" inputmode="numeric"></label></fieldset>'
  );
}

export const hidden = (name: string, value: string | undefined) =>
  value === undefined ? '' : `<input type="hidden" name="${name}" value="${e(value)}">`;

/** What led to the call: the user's request and the agent's words, as text (newlines kept), or nothing when neither is known. */
function contextHtml(context: TurnContext | undefined): string {
  const passage = (label: string, text: string | undefined) =>
    text === undefined
      ? ''
      : `<figure class="said"><figcaption>${label}</figcaption><blockquote class="text">${e(text)}</blockquote></figure>`;
  const html = passage('The request', context?.request) + passage('The agent said', context?.said);
  return html === '' ? '' : `<div class="context">${html}</div>`;
}

/**
 * One pending approval as a card: what will run and why it asks, with forms that approve or deny it without
 * JavaScript (the console's script adds edit, keyboard and live state on top).
 *
 * @example
 * const html = approvalCard(entry, { csrf: session.csrf, runPending: [entry.request] });
 */
export function approvalCard(entry: PendingApprovalEntry, options: CardOptions): string {
  const { request, runId, agentName, sessionId } = entry;
  const id = `card-${request.approvalId}`;
  const why =
    request.reason ?? (request.ruleId === undefined ? 'the tool asks for approval' : 'a rule asks for approval');
  const rule = request.ruleId === undefined ? '' : ` (rule <code>${e(request.ruleId)}</code>)`;
  const expires =
    request.expiresAt === undefined
      ? ' · no expiry'
      : ` · expires ${timeHtml(request.expiresAt)} <span class="countdown" data-until="${request.expiresAt}"></span>`;
  const approvers =
    request.approvers === undefined ? '' : `<p>Only ${e(request.approvers.join(', '))} may decide this one.</p>`;
  return (
    `<article class="card" id="${e(id)}" tabindex="-1" aria-labelledby="${e(id)}-title" data-state="pending"${cardAttributes(entry)}>` +
    `<h2 id="${e(id)}-title"><code>${e(request.toolName)}</code> ${badges(request)}</h2>` +
    `<p class="meta">Agent <strong>${e(agentName)}</strong> · run <code>${e(runId)}</code>${sessionId === undefined ? '' : ` · session <code>${e(sessionId)}</code>`}</p>` +
    delegationParagraph(request, agentName) +
    `<p class="description">${e(request.description)}</p>` +
    contextHtml(options.context) +
    `<p>Why a person: ${e(why)}${rule}</p>` +
    (request.shadowRuleId === undefined
      ? ''
      : `<p class="shadow">A suggested rule would have allowed this (rule <code>${e(request.shadowRuleId)}</code>, in shadow mode).</p>`) +
    (request.outcomeUnknown
      ? '<p class="warn">Outcome unknown: this call was interrupted and may already have had its effect.</p>'
      : '') +
    warningList(request) +
    argsHtml(request.args) +
    votesParagraph(request, entry.requestedBy) +
    approvers +
    `<p class="times">Requested ${timeHtml(request.requestedAt)}${expires}</p>` +
    (request.question === undefined
      ? decideForm(entry, options) + decideAllForm(entry, options)
      : questionForm(entry, request.question, options)) +
    // Shown by the stylesheet once the card is approved and its run goes on (the script moves it there); a token session's only.
    (options.cancel === false
      ? ''
      : '<form method="post" action="console/cancel" class="cancel-run">' +
        hidden('csrf', options.csrf) +
        hidden('runId', runId) +
        '<button type="submit" name="decision" value="cancel-run" class="deny" data-action="cancel-run">Cancel run</button></form>') +
    '<p class="state" role="status" aria-live="polite"></p></article>'
  );
}

/** The card's data attributes the console's script reads (run, approval, agent, tool, times, arguments...). */
function cardAttributes({ request, runId, agentName, sessionId }: PendingApprovalEntry): string {
  const attributes = {
    'data-run': runId,
    'data-approval': request.approvalId,
    'data-agent': agentName,
    'data-tool': request.toolName,
    'data-connector': request.connector,
    'data-session': sessionId,
    'data-signature': request.signature,
    'data-requested': String(request.requestedAt),
    'data-expires': request.expiresAt === undefined ? undefined : String(request.expiresAt),
    'data-args': JSON.stringify(request.args) ?? 'null',
    'data-question': request.question === undefined ? undefined : 'true',
  };
  return Object.entries(attributes)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${e(value!)}"`)
    .join('');
}

/** What every form of a card posts to name its approval: the session's CSRF token, the run, the approval, its signature. */
function targetFields(runId: string, request: PendingApprovalEntry['request'], options: CardOptions): string {
  return (
    hidden('csrf', options.csrf) +
    hidden('runId', runId) +
    hidden('approvalId', request.approvalId) +
    hidden('signature', request.signature)
  );
}

/**
 * The form that decides this one approval: approve, the wider approval, deny (with its reason), dismiss, and Edit
 * arguments for the script, each only when the request offers it (`decisionChoices`).
 */
function decideForm({ request, runId, sessionId }: PendingApprovalEntry, options: CardOptions): string {
  const offered = decisionChoices(request, sessionId);
  return (
    '<form method="post" action="console/decide" class="actions one">' +
    targetFields(runId, request, options) +
    (offered.deny
      ? `<label>Reason (sent with a denial)<input type="text" name="reason" maxlength="4000"></label>`
      : '') +
    (offered.approve
      ? '<button type="submit" name="decision" value="approve" class="approve" data-action="approve">Approve</button>'
      : '') +
    widerApproval(offered.wider) +
    (offered.deny
      ? '<button type="submit" name="decision" value="deny" class="deny" data-action="deny">Deny</button>'
      : '') +
    // A dismissal is one person's closing of the request, not a vote: a quorum request takes approve or deny only.
    (offered.dismiss
      ? '<button type="submit" name="decision" value="dismiss" data-action="dismiss">Dismiss</button>'
      : '') +
    (options.edit === false || !offered.edit
      ? ''
      : '<button type="button" class="js-only" data-action="edit" hidden>Edit arguments</button>') +
    '</form>'
  );
}

/**
 * The form that answers a question (its fields, `questionFields`) or declines it, as the request offers: a
 * keyboard-first form that posts `answer.<field>` pairs without the script, and that the script sends as JSON.
 */
function questionForm({ request, runId }: PendingApprovalEntry, question: Question, options: CardOptions): string {
  const offered = decisionChoices(request, undefined);
  return (
    '<form method="post" action="console/decide" class="actions one question">' +
    targetFields(runId, request, options) +
    questionFields(question, { idPrefix: `card-${request.approvalId}` }) +
    '<div class="buttons"><label>Reason (sent when you decline)<input type="text" name="reason" maxlength="4000"></label>' +
    (offered.approve
      ? '<button type="submit" name="decision" value="answer" class="approve" data-action="answer">Answer</button>'
      : '') +
    // Declining needs no answer, so the form's own checks of its fields do not stop it.
    (offered.deny
      ? '<button type="submit" name="decision" value="deny" class="deny" data-action="deny" formnovalidate>Decline</button>'
      : '') +
    '</div></form>'
  );
}

/**
 * Approve all or deny all of the run's pending approvals, when the run has others than this one, each only when every
 * one of them offers it (Approve all never with a question among them); '' otherwise.
 */
function decideAllForm({ request, runId }: PendingApprovalEntry, options: CardOptions): string {
  const others = options.runPending.filter((other) => other.approvalId !== request.approvalId);
  // A question is approved only with its answer, so none is approved in bulk (denying declines it).
  const all = (kind: 'approve' | 'deny') =>
    options.runPending.every(
      (other) => decisionChoices(other, undefined)[kind] && (kind === 'deny' || other.question === undefined),
    );
  if (others.length === 0 || (!all('approve') && !all('deny'))) return '';
  const count = options.runPending.length;
  return (
    '<form method="post" action="console/decide-all" class="actions all">' +
    hidden('csrf', options.csrf) +
    hidden('runId', runId) +
    options.runPending
      .map((other) => hidden('approvalIds', other.approvalId) + hidden('signatures', other.signature))
      .join('') +
    `<span>${count} pending in this run:</span>` +
    (all('approve')
      ? `<button type="submit" name="decision" value="approve" data-action="approve-all">Approve all ${count}</button>`
      : '') +
    (all('deny')
      ? `<button type="submit" name="decision" value="deny" data-action="deny-all">Deny all ${count}</button>`
      : '') +
    '</form>'
  );
}
