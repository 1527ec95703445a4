import { ConsoleRequestError, postJson } from './api.js';
import { type CardState, cardsOfRun, setCardState } from './card-state.js';

const failed = (card: HTMLElement, error: unknown) =>
  setCardState(card, 'pending', error instanceof ConsoleRequestError ? `Not decided: ${error.message}` : 'Not decided: the server could not be reached; try again.', true);

/** The state a decision leaves its card in once the server answered, unless an event already moved it further. */
function settle(card: HTMLElement, state: CardState, text: string): void {
  if (card.dataset['state'] === 'pending') setCardState(card, state, text);
}

/** The ways a card decides: approve once, for the rest of the run, for the session (with the card's bounds), deny. */
export type ConsoleDecision = 'approve' | 'run' | 'session' | 'deny';

/** The bounds typed on the card for Approve for this session (empty fields are left out). */
function grantBounds(card: HTMLElement): Record<string, string> {
  const bounds: Record<string, string> = {};
  for (const name of ['ttlMinutes', 'uses']) {
    const value = card.querySelector<HTMLInputElement>(`input[name=${name}]`)?.value.trim() ?? '';
    if (value !== '') bounds[name] = value;
  }
  return bounds;
}

/** What an answered vote on a quorum request leaves on its card. */
const voteText = (vote: { remaining: number }) => (vote.remaining > 0 ? `Vote recorded: ${vote.remaining} more needed.` : 'Vote recorded.');

/**
 * Sends a decision on a card as the signed-in reviewer: approve (once, for the rest of the run, or for the session
 * within the bounds typed on the card), deny with the reason typed on the card, or approve with edited arguments.
 * Resolves true once the server took it.
 *
 * @example
 * await decide(card, 'deny');
 */
export async function decide(card: HTMLElement, decision: ConsoleDecision, args?: unknown): Promise<boolean> {
  if (card.dataset['state'] !== 'pending') return false;
  const reason = card.querySelector<HTMLInputElement>('input[name=reason]')?.value.trim() ?? '';
  setCardState(card, 'sending', decision === 'deny' ? 'Denying…' : 'Approving…');
  try {
    const answer = await postJson('console/decide', {
      runId: card.dataset['run'],
      approvalId: card.dataset['approval'],
      decision,
      ...(decision === 'session' ? grantBounds(card) : {}),
      ...(reason === '' ? {} : { reason }),
      ...(card.dataset['signature'] === undefined ? {} : { signature: card.dataset['signature'] }),
      ...(args === undefined ? {} : { args }),
    });
    const vote = answer['vote'] as { remaining: number } | undefined;
    if (vote !== undefined && answer['status'] === 'awaitingApproval') {
      setCardState(card, 'pending', voteText(vote));
      return true;
    }
    settle(card, decision === 'deny' ? 'denied' : 'approved', decision === 'deny' ? 'Denied.' : 'Approved.');
    return true;
  } catch (error) {
    failed(card, error);
    return false;
  }
}

/**
 * Approves or denies every pending request of a card's run that the page shows (their signatures echoed, so nothing
 * the person did not see is decided).
 *
 * @example
 * await decideAll(card, 'approve');
 */
export async function decideAll(card: HTMLElement, decision: 'approve' | 'deny'): Promise<void> {
  const runId = card.dataset['run'] ?? '';
  const cards = cardsOfRun(runId).filter((other) => other.dataset['state'] === 'pending');
  if (cards.length === 0) return;
  for (const other of cards) setCardState(other, 'sending', decision === 'approve' ? 'Approving all…' : 'Denying all…');
  const signatures = cards.map((other) => other.dataset['signature']).filter((signature) => signature !== undefined);
  try {
    await postJson('console/decide-all', { runId, decision, ...(signatures.length === 0 ? {} : { signatures }) });
    for (const other of cards) settle(other, decision === 'approve' ? 'approved' : 'denied', decision === 'approve' ? 'Approved.' : 'Denied.');
  } catch (error) {
    for (const other of cards) failed(other, error);
  }
}

/** Asks for a denial's reason on the card: its reason field, focused; Enter there denies, Escape cancels. */
export function askDenyReason(card: HTMLElement): void {
  const input = card.querySelector<HTMLInputElement>('input[name=reason]');
  if (input === null || card.dataset['state'] !== 'pending') return;
  card.dataset['denying'] = 'true';
  setCardState(card, 'pending', 'Type a reason for the denial and press Enter to deny; Escape cancels.');
  input.focus();
}

/** Leaves the reason field without denying. */
export function cancelDeny(card: HTMLElement): void {
  delete card.dataset['denying'];
  setCardState(card, 'pending', '');
  card.focus();
}
