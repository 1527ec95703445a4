// Which decisions a surface offers for a request, decided here once for all of them: the buttons of a card that
// carries one-click tokens (Slack, Telegram, Discord, email, the inbox page), and the choices of a surface that
// decides by name (the console, the CLI). Each offers only what the request's `decisions` allow; a dismissal is not a
// decision, and is offered wherever one person decides.
import type { ApprovalLinkTokens, LinkClaim } from '../../links/approval-links.js';
import { offers, widerScopeOf } from '../../run/decision-kinds.js';
import type { ApprovalRequest } from '../../run/types.js';
import { widerOffer } from './wording.js';

/**
 * One decision button of a card: the token it carries (`which` names its field of `ApprovalLinkTokens`) and its label.
 *
 * @example
 * const button: DecisionButton = { which: 'approve', label: 'Approve', token: tokens.approve! };
 */
export interface DecisionButton {
  readonly which: 'approve' | 'approveForRun' | 'deny';
  readonly label: string;
  readonly token: string;
}

/**
 * The decision buttons of a card, in order: Approve, the wider approval (`widerOffer`), Deny; each only when the
 * request offers it and there is a token for it. Empty when no decision the request offers fits a button (an edit).
 * A question's are Answer (its approve token: the surface opens its form) and Decline, never a wider approval.
 *
 * @example
 * const elements = decisionButtons(card.request, card.tokens).map((button) => ({ text: button.label, value: button.token }));
 */
export function decisionButtons(
  request: Pick<ApprovalRequest, 'decisions' | 'quorum' | 'oneCallRun' | 'question'>,
  tokens: ApprovalLinkTokens,
): readonly DecisionButton[] {
  const question = request.question !== undefined;
  const wider = question ? undefined : widerOffer(request, tokens);
  const buttons: DecisionButton[] = [];
  if (tokens.approve !== undefined && offers(request.decisions, 'approve'))
    buttons.push({ which: 'approve', label: question ? 'Answer' : 'Approve', token: tokens.approve });
  if (wider !== undefined && tokens.approveForRun !== undefined)
    buttons.push({ which: 'approveForRun', label: wider, token: tokens.approveForRun });
  if (tokens.deny !== undefined && offers(request.decisions, 'deny'))
    buttons.push({ which: 'deny', label: question ? 'Decline' : 'Deny', token: tokens.deny });
  return buttons;
}

/** What a card says in place of buttons when no decision the request offers fits one (`decisionButtons` is empty). */
export const NO_BUTTONS_TEXT =
  'No decision this request offers can be made with a button here; decide it in the console, the CLI or through the API.';

/**
 * What a surface that decides by name (the console, the CLI) offers for a request: approve once, the wider approval
 * (its scope and label, or undefined), deny, edit, and dismiss (not on a quorum request: a dismissal is not a vote).
 */
export interface DecisionChoices {
  readonly approve: boolean;
  readonly wider: { readonly scope: 'run' | 'session'; readonly label: string } | undefined;
  readonly deny: boolean;
  readonly edit: boolean;
  readonly dismiss: boolean;
}

/**
 * The choices a surface that decides by name offers for `request` on a run with `sessionId` (see `DecisionChoices`).
 *
 * @example
 * const offered = decisionChoices(entry.request, entry.sessionId);
 * if (offered.wider !== undefined) keys.push(`s approve ${offered.wider.label}`);
 */
export function decisionChoices(
  request: Pick<ApprovalRequest, 'decisions' | 'quorum' | 'oneCallRun'>,
  sessionId: string | undefined,
): DecisionChoices {
  const scope = widerScopeOf(request.decisions, sessionId);
  const label = scope === undefined ? undefined : widerOffer(request, { wider: scope });
  return {
    approve: offers(request.decisions, 'approve'),
    wider: scope === undefined || label === undefined ? undefined : { scope, label },
    deny: offers(request.decisions, 'deny'),
    edit: offers(request.decisions, 'edit'),
    dismiss: request.quorum === undefined,
  };
}

/** Whether the decision a one-click token claims is one the request offers (one minted without its `decisions` may not be). */
export function claimOffered(
  request: Pick<ApprovalRequest, 'decisions'>,
  claim: Pick<LinkClaim, 'decision' | 'scope'>,
): boolean {
  const verdict = claim.decision === 'deny' || claim.scope === undefined ? [claim.decision] : [];
  return [...verdict, ...(claim.scope === undefined ? [] : [claim.scope])].every((kind) =>
    offers(request.decisions, kind),
  );
}
