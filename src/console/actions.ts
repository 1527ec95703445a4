import { ConsoleRequestError, postJson } from './api.js';
import { cardsOfRun, markApproved, setCardState } from './card-state.js';

/** A refused decision leaves its card pending with why, unless an event already moved the card on. */
function failed(card: HTMLElement, error: unknown): void {
  if (card.dataset['state'] !== 'pending') return;
  setCardState(
    card,
    'pending',
    error instanceof ConsoleRequestError
      ? `Not decided: ${error.message}`
      : 'Not decided: the server could not be reached; try again.',
    true,
  );
}

/** The signed-in reviewer, who the page's own decisions are recorded as. */
export const reviewer = () => document.querySelector<HTMLElement>('main[data-reviewer]')?.dataset['reviewer'];

/** The state a decision leaves its card in once the server answered, unless an event already moved it further. */
function settle(card: HTMLElement, decision: ConsoleDecision): void {
  if (card.dataset['state'] !== 'pending') return;
  if (decision === 'dismiss')
    setCardState(card, 'dismissed', 'Dismissed: closed without a decision; the call does not run.');
  else if (decision === 'deny')
    setCardState(card, 'denied', card.dataset['question'] === undefined ? 'Denied.' : 'Declined.');
  else markApproved(card, reviewer());
}

/**
 * The ways a card decides: approve once, for the rest of the run, for the session (with the card's bounds), deny,
 * or dismiss (closed without a decision; not offered on a quorum request).
 */
export type ConsoleDecision = 'approve' | 'run' | 'session' | 'deny' | 'dismiss';

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
const voteText = (vote: { remaining: number }) =>
  vote.remaining > 0 ? `Vote recorded: ${vote.remaining} more needed.` : 'Vote recorded.';

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
  setCardState(
    card,
    'sending',
    decision === 'deny' ? 'Denying…' : decision === 'dismiss' ? 'Dismissing…' : 'Approving…',
  );
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
    settle(card, decision);
    return true;
  } catch (error) {
    failed(card, error);
    return false;
  }
}

/** What the server answered for one approval of a blanket decision (`POST console/decide-all`'s `results`). */
interface BlanketResult {
  readonly approvalId: string;
  readonly ok: boolean;
  readonly vote?: { readonly remaining: number };
  readonly problem?: { readonly detail?: string };
}

/**
 * Approves or denies exactly `cards` (cards of one run, the ones the person saw): their approval ids and signatures
 * are sent, so the server decides these and nothing that arrived since. Each card still pending then shows what
 * became of its own approval.
 *
 * @example
 * await decideAll(cardsOfRun(runId).filter((card) => card.dataset['state'] === 'pending'), 'deny');
 */
export async function decideAll(cards: readonly HTMLElement[], decision: 'approve' | 'deny'): Promise<void> {
  const runId = cards[0]?.dataset['run'];
  if (runId === undefined) return;
  // Every listed card is sent, also one decided elsewhere meanwhile (the server answers it as a repeat); only the
  // pending ones show that they are being sent.
  for (const card of cards)
    if (card.dataset['state'] === 'pending')
      setCardState(card, 'sending', decision === 'approve' ? 'Approving all…' : 'Denying all…');
  const signatures = cards.map((card) => card.dataset['signature']).filter((signature) => signature !== undefined);
  try {
    const answer = await postJson('console/decide-all', {
      runId,
      decision,
      approvalIds: cards.map((card) => card.dataset['approval']),
      ...(signatures.length === 0 ? {} : { signatures }),
    });
    const results = new Map(
      ((answer['results'] ?? []) as BlanketResult[]).map((result) => [result.approvalId, result]),
    );
    for (const card of cards) {
      const result = results.get(card.dataset['approval'] ?? '');
      if (card.dataset['state'] !== 'pending') continue;
      if (result?.ok === false)
        failed(card, new ConsoleRequestError(result.problem?.detail ?? 'the server refused it.'));
      else if (result?.vote !== undefined && result.vote.remaining > 0)
        setCardState(card, 'pending', voteText(result.vote));
      else settle(card, decision);
    }
  } catch (error) {
    for (const card of cards) failed(card, error);
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

/**
 * Cancel run on an approved card: cancels its run (`runtime.cancel`, as the signed-in reviewer), so a call approved
 * by mistake, or one running too long, stops. The run's cards still approved or pending then say so.
 *
 * @example
 * await cancelRun(card);
 */
export async function cancelRun(card: HTMLElement): Promise<void> {
  const runId = card.dataset['run'];
  if (runId === undefined || card.dataset['state'] !== 'approved') return;
  try {
    await postJson('console/cancel', {
      runId,
      reason: `cancelled from the console by ${reviewer() ?? 'the reviewer'}`,
    });
    for (const other of cardsOfRun(runId)) {
      if (other.dataset['state'] === 'approved' || other.dataset['state'] === 'pending')
        setCardState(other, 'cancelled', 'The run was cancelled from this console.');
    }
  } catch (error) {
    writeError(
      card,
      error instanceof ConsoleRequestError
        ? `Not cancelled: ${error.message}`
        : 'Not cancelled: the server could not be reached; try again.',
    );
  }
}

/** Says why on a card without moving it on. */
function writeError(card: HTMLElement, text: string): void {
  const line = card.querySelector<HTMLElement>('.state');
  if (line === null) return;
  line.textContent = text;
  line.classList.add('error');
}
