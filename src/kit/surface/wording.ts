// Every sentence a chat channel says about a decision, written once: what the clicker is told (a short line for a
// toast and a full one for the message), and how a card reads once its approval ended. Each channel renders them
// with its own Markup, so the words are the same on Slack, Telegram, Discord and email.
import type { ApprovalLinkTokens } from '../../links/approval-links.js';
import type { RunEvent } from '../../run/run-events.js';
import type { ApprovalRequest, AuditEntry, EscalationTarget } from '../../run/types.js';
import type { LinkRespondResult } from '../../runtime/runtime.js';
import { offers } from '../../run/decision-kinds.js';
import { fitEscaped, type Markup } from '../markup.js';
import { answerRefusal } from './question-wording.js';
import type { Refusal } from './refusal.js';
import { annotationLine, delegationLine, partitionWarnings, votesLine } from './request-notes.js';

/** What a clicker is told: `short` fits a toast (200 characters, plain), `text` the message; `replace` says whether the card itself should read it. */
export interface ClickReply {
  readonly short: string;
  readonly text: string;
  readonly replace: boolean;
}

const reply = (short: string, text: string, replace: boolean): ClickReply => ({ short, text, replace });

/**
 * The reply to a click whose decision was recorded (`carryingOn`: the run was still going when the reply was due;
 * `answered`: the click answered a question).
 */
export function decidedReply(
  result: LinkRespondResult,
  carryingOn: boolean,
  clicker: string,
  m: Markup,
  answered = false,
): ClickReply {
  const progress = result.vote;
  if (progress !== undefined && progress.remaining > 0) {
    const more = moreNeeded(progress.remaining);
    const what = progress.recorded
      ? `Vote by ${m.who(clicker)} recorded`
      : `${m.who(clicker)} already voted; nothing was done again`;
    return reply(
      `${progress.recorded ? 'Vote recorded' : 'Already voted'}: ${more}.`,
      `${what}: ${progress.approvals} of ${progress.required} approvals, ${more}.`,
      false,
    );
  }
  const what = answered ? 'Answer' : 'Decision';
  if (carryingOn)
    return reply(`${what} recorded.`, `${what} by ${m.who(clicker)} recorded; the run is carrying on.`, true);
  const entry = result.snapshot.audit.find((item) => item.approvalId === result.approvalId);
  const tool = entry ? ` ${m.strong(m.escape(entry.toolName))},` : '';
  if (result.duplicate) {
    return reply(
      'Already decided; nothing was done again.',
      `Already ${entry?.decision ?? 'decided'} by ${m.who(entry?.by)}:${tool} run is ${result.status}.`,
      true,
    );
  }
  const verb = answered ? 'Answered' : entry?.decision === 'denied' ? 'Denied' : 'Approved';
  return reply(`${verb}.`, `${verb} by ${m.who(entry?.by ?? clicker)}:${tool} run is ${result.status}.`, true);
}

/** '1 more approval needed', '2 more approvals needed'. */
export function moreNeeded(remaining: number): string {
  return `${remaining} more approval${remaining === 1 ? '' : 's'} needed`;
}

/**
 * The label of the wider approve button: "Approve for this session" for a run with a session (its token records a
 * session grant), else "Approve for this run". Cards offer it only on a request without a quorum (a vote is once).
 *
 * @example
 * widerLabel(await runtime.linkTokens(runId, approvalId)); // 'Approve for this session'
 */
export function widerLabel(tokens: Pick<ApprovalLinkTokens, 'wider'>): string {
  return tokens.wider === 'session' ? 'Approve for this session' : 'Approve for this run';
}

/**
 * The label of the wider approve button a card offers for `request`, or undefined when it offers none: never on a
 * request several people must approve (a vote is once), nor for a scope its `decisions` do not offer, nor "for this
 * run" on a run that makes no other call (`oneCallRun`); "for this session" stays, since it covers the session's
 * later runs.
 *
 * @example
 * const wider = widerOffer(request, tokens);
 * if (wider !== undefined && tokens.approveForRun !== undefined) buttons.push({ label: wider, token: tokens.approveForRun });
 */
export function widerOffer(
  request: Pick<ApprovalRequest, 'quorum' | 'oneCallRun' | 'decisions'>,
  tokens: Pick<ApprovalLinkTokens, 'wider'>,
): string | undefined {
  if (request.quorum !== undefined || !offers(request.decisions, tokens.wider)) return undefined;
  if (request.oneCallRun === true && tokens.wider === 'run') return undefined;
  return widerLabel(tokens);
}

/** What a button or link of an approval that is no longer pending says when it is opened again. */
export function settledText(entry: AuditEntry, m: Markup): string {
  return `Already ${entry.decision} by ${m.who(entry.by)}; nothing was done again.`;
}

/** The reply to a click that decided nothing, by why (`classifyRefusal`). */
export function refusalReply(refusal: Refusal, clicker: string, channel: string, m: Markup): ClickReply {
  switch (refusal.kind) {
    case 'used': {
      if (refusal.vote !== undefined) {
        const more = moreNeeded(refusal.vote.remaining);
        return reply(
          `Vote already counted: ${more}.`,
          `This vote was already counted; nothing was done again: ${refusal.vote.approvals} of ${refusal.vote.required} approvals, ${more}.`,
          false,
        );
      }
      const text = refusal.entry ? settledText(refusal.entry, m) : 'Already decided; nothing was done again.';
      return reply('Already used; nothing was done again.', `${text} This button was used before.`, true);
    }
    case 'expired':
      return reply(
        'These buttons have expired.',
        'These buttons have expired; nothing was done. Ask the agent again.',
        true,
      );
    case 'invalid':
      return reply(
        'This button is not valid; nothing was done.',
        'This button is not valid (its token does not verify); nothing was done.',
        false,
      );
    case 'conflict':
      return reply(
        'Already decided.',
        `Already ${refusal.winner?.decision ?? 'decided'} by ${m.who(refusal.winner?.by)}; your click changed nothing.`,
        true,
      );
    case 'approval_expired':
      return reply('This approval expired.', 'This approval expired before the click; nothing was done.', true);
    case 'gone':
      return reply('No longer pending.', 'This approval is no longer pending; nothing was done.', true);
    case 'not_offered':
      return reply(
        'This decision is not offered here.',
        'This approval does not offer that decision (its tool or rule allows fewer); nothing was done. Use one of the choices it shows.',
        false,
      );
    case 'not_allowed':
      return reply(
        'You may not decide this approval.',
        `${m.who(clicker)} may not decide this approval; nothing was done. Ask one of its approvers.`,
        false,
      );
    case 'store':
      return reply(
        'Not recorded; click again in a moment.',
        'Your decision could not be recorded just now; click again in a moment.',
        false,
      );
    case 'invalid_answer':
      return reply('Answer not recorded; correct it.', answerRefusal(undefined, refusal.issues, m), false);
    case 'unexpected':
      return refusal.config
        ? reply(
            'Not set up on this server.',
            `Approvals from ${channel} are not set up on this server; nothing was done.`,
            false,
          )
        : reply(
            'Something went wrong; try again.',
            'Something went wrong; your decision may not be recorded. Try again.',
            false,
          );
  }
}

/** How an approval ended, or how the call it allowed ended: what a card reads once it is no longer a question. */
export type CardOutcome =
  | { readonly kind: 'decided'; readonly entry: AuditEntry }
  | { readonly kind: 'finished'; readonly event: Extract<RunEvent, { type: 'tool-finished' }> };

/** The line a card shows for `outcome`, at most `excerpt` characters of a tool's result. */
export function outcomeLine(outcome: CardOutcome, m: Markup, excerpt = 300): string {
  if (outcome.kind === 'finished') {
    const { event } = outcome;
    const result = event.result.length > excerpt ? `${event.result.slice(0, excerpt)}…` : event.result;
    return event.status === 'succeeded'
      ? `▶️ ${m.strong(m.escape(event.toolName))} ran: ${m.code(m.escape(result))}`
      : `⚠️ ${m.strong(m.escape(event.toolName))} failed: ${m.code(m.escape(result))}`;
  }
  const { entry } = outcome;
  if (entry.source === 'expiry') return `⌛ Nobody decided in time: the approval expired and was ${entry.decision}.`;
  if (entry.source === 'dismissed') return `➖ Closed without a decision by ${m.who(entry.by)}; the call did not run.`;
  const reason = entry.decision === 'denied' && entry.reason ? `: ${m.escape(entry.reason)}` : '';
  const scope =
    entry.scope === 'run' ? ' for the rest of this run' : entry.scope === 'session' ? ' for this session' : '';
  return entry.decision === 'approved'
    ? `✅ Approved${scope} by ${m.who(entry.by)}.`
    : `❌ Denied by ${m.who(entry.by)}${reason}.`;
}

/**
 * Why a card is posted again for a request still waiting: a reminder (from 1), or an escalation that brought `to` in.
 *
 * @example
 * const nudge: CardNudge = { kind: 'escalation', to: ['carol'] };
 */
export type CardNudge =
  | { readonly kind: 'reminder'; readonly reminder: number }
  | { readonly kind: 'escalation'; readonly to: EscalationTarget };

/**
 * The line a re-posted card opens with: "Still waiting…" for a reminder, who was brought in for an escalation.
 *
 * @example
 * nudgeLine({ kind: 'reminder', reminder: 2 }, slackMarkup); // '⏰ *Still waiting* for a decision (reminder 2).'
 */
export function nudgeLine(nudge: CardNudge, m: Markup): string {
  if (nudge.kind === 'reminder') return `⏰ ${m.strong('Still waiting')} for a decision (reminder ${nudge.reminder}).`;
  const to = Array.isArray(nudge.to)
    ? (nudge.to as readonly string[]).map((id) => m.who(id)).join(', ')
    : `this channel (${m.escape((nudge.to as { channel: string }).channel)})`;
  return `📣 ${m.strong('Escalated')} to ${to}: nobody has decided yet.`;
}

/**
 * A card's opening: who wants to run what (and through which connector), which sub-agent asked (`delegationLine`),
 * what the tool says about itself, the model's description, why a person decides, and an interrupted call's note,
 * after the line saying why it is asked again (`nudge`), if it is; escaped and marked up, at most `limit` characters.
 */
export function cardHead(
  request: ApprovalRequest,
  agentName: string,
  m: Markup,
  limit: number,
  nudge?: CardNudge,
): string {
  const connector = request.connector === undefined ? '' : ` through ${m.strong(m.escape(request.connector))}`;
  const claims = annotationLine(request, m);
  const delegation = delegationLine(request, m, agentName);
  return fitEscaped(
    (nudge === undefined ? '' : `${nudgeLine(nudge, m)}\n`) +
      `${m.strong(m.escape(request.toolName))} wants to run for agent ${m.strong(m.escape(agentName))}${connector}.` +
      (delegation === '' ? '' : `\n${delegation}`) +
      (claims === '' ? '' : `\n${claims}`) +
      (request.quorum === undefined ? '' : `\n${votesLine(request, m)}`) +
      `\n${m.escape(request.description)}` +
      (request.reason ? `\nWhy a person decides: ${m.escape(request.reason)}` : '') +
      (request.outcomeUnknown ? '\n❔ This call was interrupted before; it may or may not have had its effect.' : ''),
    limit,
  );
}

/**
 * A card's warnings, '' when there are none; at most `limit` characters: those about the request (a disconnected
 * connector) a line each, then those about the displayed arguments.
 */
export function cardWarnings(request: ApprovalRequest, m: Markup, limit: number): string {
  const { request: aboutRequest, args } = partitionWarnings(request);
  const lines = [
    ...aboutRequest.map((warning) => `⚠️ ${m.escape(warning.message)}`),
    ...(args.length === 0
      ? []
      : [
          '⚠️ Check the arguments carefully:',
          ...args.map((warning) => `• ${m.escape(warning.path || '(arguments)')}: ${m.escape(warning.message)}`),
        ]),
  ];
  return lines.length === 0 ? '' : fitEscaped(lines.join('\n'), limit);
}
