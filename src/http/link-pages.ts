import { type LinkClaim, annotationBadges, type InboxPage, type ApprovalRequest } from '../index.js';
import {
  escapeHtml,
  htmlMarkup,
  annotationLine,
  delegationLine,
  partitionWarnings,
  votesLine,
  widerLabel,
  decisionButtons,
  NO_BUTTONS_TEXT,
  approversNow,
} from '../kit/index.js';

/**
 * Headers every link page carries: nothing external may load, no framing
 * (a click-jacked approve button), no token leaking through Referer, no
 * caching of a page that names a pending decision.
 */
export const LINK_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111}' +
  'pre{background:#f4f4f4;padding:1rem;overflow:auto;white-space:pre-wrap;word-break:break-word}' +
  '.warn{background:#fff4e5;border-left:4px solid #f59e0b;padding:.5rem 1rem}' +
  'button{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:4px;color:#fff;cursor:pointer}' +
  '.approve{background:#15803d}.deny{background:#b91c1c}.item{border-top:1px solid #ddd;padding:.5rem 0 1rem}' +
  '.field{border:0;margin:0 0 1rem;padding:0}.field label,.field legend{display:block;font-weight:600}' +
  '.option{display:block;font-weight:400!important}.hint{display:block;color:#555;font-size:.9rem}' +
  '.field input[type=text],.field input[type=number],.field input[type=date],.field select,.field textarea' +
  '{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}.field-error{display:block;color:#b91c1c;font-weight:600}';

/** A link page: its title, the shared style, and `body` (already HTML). */
export function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** What the tool says about itself, in a warning box when it says it is destructive; '' when it says nothing. */
export function claimsParagraph(request: ApprovalRequest): string {
  const line = annotationLine(request, htmlMarkup);
  if (line === '') return '';
  return annotationBadges(request.annotations).includes('destructive')
    ? `<p class="warn">${line}</p>`
    : `<p>${line}</p>`;
}

/**
 * Which sub-agent asked: the chain of agents from the run's (`agentName`) down to it (`delegationLine`); '' for a
 * run's own call.
 */
export function delegationParagraph(request: ApprovalRequest, agentName: string): string {
  const line = delegationLine(request, htmlMarkup, agentName);
  return line === '' ? '' : `<p class="delegation">${line}</p>`;
}

/** Warnings about the request (a disconnected connector) a box each, then those about the arguments in one list. */
export function warningList(request: ApprovalRequest): string {
  const { request: aboutRequest, args } = partitionWarnings(request);
  const boxes = aboutRequest
    .map((warning) => `<p class="warn"><strong>⚠️ ${escapeHtml(warning.message)}</strong></p>`)
    .join('');
  if (args.length === 0) return boxes;
  const items = args
    .map((warning) => `<li>${escapeHtml(warning.path || '(arguments)')}: ${escapeHtml(warning.message)}</li>`)
    .join('');
  return `${boxes}<div class="warn"><strong>Check the arguments carefully:</strong><ul>${items}</ul></div>`;
}

/** Where the votes stand on a request several people must approve (`votesLine`); '' for one person's request. */
function votesParagraph(request: ApprovalRequest, requestedBy: string | undefined): string {
  const line = votesLine(request, htmlMarkup, requestedBy);
  return line === '' ? '' : `<p>${line}</p>`;
}

export function stringifyArgs(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    return String(args);
  }
}

/** `session <id>` after a run id, for a run in a session. */
function sessionPart(sessionId: string | undefined, separator: string): string {
  return sessionId === undefined ? '' : `${separator}session <code>${escapeHtml(sessionId)}</code>`;
}

/**
 * The page `GET /links/:token` shows: what the link will decide, with the
 * tool name, what the tool says about itself (its annotations, as its own
 * claims), the redacted arguments and the warnings, and a form that
 * POSTs the decision. Showing it changes nothing, so a link scanner that
 * fetches the URL cannot approve anything.
 *
 * @example
 * const html = confirmationPage({ claim, request, agentName: snapshot.agentName, action: `/links/${token}` });
 */
export function confirmationPage(input: {
  readonly claim: LinkClaim;
  readonly request: ApprovalRequest;
  readonly action: string;
  /** The run's agent, where the chain of a sub-agent's request starts. */
  readonly agentName: string;
  readonly sessionId?: string;
  readonly requestedBy?: string;
}): string {
  const { claim, request, action } = input;
  const approve = claim.decision === 'approve';
  const verb = !approve
    ? request.question === undefined
      ? 'Deny'
      : 'Decline'
    : claim.scope === undefined
      ? 'Approve'
      : widerLabel({ wider: claim.scope });
  const warnings = warningList(request);
  const expires =
    request.expiresAt === undefined
      ? ''
      : `<p>This request expires at ${escapeHtml(new Date(request.expiresAt).toISOString())}.</p>`;
  return layout(
    `${verb} ${request.toolName}?`,
    `<h1>${escapeHtml(verb)} <code>${escapeHtml(request.toolName)}</code>?</h1>` +
      delegationParagraph(request, input.agentName) +
      claimsParagraph(request) +
      `<p>${escapeHtml(request.description)}</p>` +
      (request.reason ? `<p>Why this needs a person: ${escapeHtml(request.reason)}</p>` : '') +
      `<p>Run <code>${escapeHtml(claim.runId)}</code>${sessionPart(input.sessionId, ', ')}, approval <code>${escapeHtml(request.approvalId)}</code>.</p>` +
      votesParagraph(request, input.requestedBy) +
      warnings +
      `<h2>Arguments</h2><pre>${escapeHtml(stringifyArgs(request.args))}</pre>` +
      expires +
      (claim.approvedBy === undefined
        ? ''
        : `<p>Recorded as decided by <strong>${escapeHtml(claim.approvedBy)}</strong>.</p>`) +
      `<form method="post" action="${escapeHtml(action)}"><button type="submit" class="${approve ? 'approve' : 'deny'}">${verb}</button></form>` +
      '<p><small>This link works once.</small></p>',
  );
}

/**
 * A page that reports an outcome or a refusal (`POST /links/:token`, or a
 * `GET` on a link that can no longer be used).
 *
 * @example
 * const html = messagePage('Approved', 'The run goes on.');
 */
export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

/**
 * A reviewer's inbox (`GET /inbox/:token`): every pending approval of the
 * page with what it will run (tool, its annotations, redacted arguments, warnings, expiry)
 * and Approve, Approve for this run (or session; not on a quorum request) and Deny buttons that post its one-click links as the
 * reviewer, each only when the request offers it (`decisionButtons`); a question's Answer is a link to its form.
 * Showing it changes nothing.
 *
 * @example
 * const html = inboxPage(await runtime.reviewInbox(token), { next: `./${token}?cursor=abc` });
 */
export function inboxPage(
  page: InboxPage,
  options: { readonly next?: string; readonly linkPath: (token: string) => string },
): string {
  const item = (entry: InboxPage['items'][number]) => {
    const { request } = entry;
    const expires =
      request.expiresAt === undefined ? '' : ` · expires ${escapeHtml(new Date(request.expiresAt).toISOString())}`;
    const offered = decisionButtons(request, entry.tokens).map((button) =>
      // A question is answered on its approve link's page, where its form is.
      request.question !== undefined && button.which === 'approve'
        ? `<a class="answer" href="${escapeHtml(options.linkPath(button.token))}">${escapeHtml(button.label)}</a>`
        : `<form method="post" action="${escapeHtml(options.linkPath(button.token))}" style="display:inline"><button type="submit" class="${button.which === 'deny' ? 'deny' : 'approve'}">${escapeHtml(button.label)}</button></form>`,
    );
    const buttons = !entry.mayDecide
      ? `<p><em>Only ${escapeHtml((approversNow(request) ?? []).join(', '))} may decide this one.</em></p>`
      : offered.length === 0
        ? `<p><em>${escapeHtml(NO_BUTTONS_TEXT)}</em></p>`
        : offered.join(' ');
    return (
      `<section class="item"><h2><code>${escapeHtml(request.toolName)}</code> · ${escapeHtml(entry.agentName)}</h2>` +
      delegationParagraph(request, entry.agentName) +
      claimsParagraph(request) +
      `<p>${escapeHtml(request.description)}</p>` +
      (request.reason ? `<p>Why this needs a person: ${escapeHtml(request.reason)}</p>` : '') +
      (request.outcomeUnknown
        ? '<p class="warn">This call was interrupted; it may already have had its effect.</p>'
        : '') +
      votesParagraph(request, entry.requestedBy) +
      warningList(request) +
      `<pre>${escapeHtml(stringifyArgs(request.args))}</pre>` +
      `<p><small>Run <code>${escapeHtml(entry.runId)}</code>${sessionPart(entry.sessionId, ' · ')}${expires}</small></p>` +
      buttons +
      '</section>'
    );
  };
  const body =
    page.items.length === 0
      ? '<p>Nothing is waiting for a decision.</p>'
      : page.items.map(item).join('') +
        (options.next ? `<p><a href="${escapeHtml(options.next)}">Next page</a></p>` : '');
  return layout(
    `Approvals for ${page.reviewer}`,
    `<h1>Waiting for a decision</h1><p>Signed in as <strong>${escapeHtml(page.reviewer)}</strong> until ${escapeHtml(new Date(page.expiresAt).toISOString())}. ` +
      'Soonest expiry first; reload to see new requests.</p>' +
      body,
  );
}
