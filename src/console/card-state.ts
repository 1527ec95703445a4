/** Where a card stands: waiting, or what became of it after the decision. */
export type CardState =
  | 'pending'
  | 'sending'
  | 'approved'
  | 'completed'
  | 'denied'
  | 'dismissed'
  | 'expired'
  | 'failed'
  | 'cancelled';

/**
 * Shows a card's state: its `data-state` (the stylesheet hides its buttons once decided) and a line a screen
 * reader announces.
 *
 * @example
 * setCardState(card, 'completed', 'Completed: {"ok":true}');
 */
export function setCardState(card: HTMLElement, state: CardState, text: string, isError = false): void {
  card.dataset['state'] = state === 'sending' ? 'pending' : state;
  card.toggleAttribute('aria-busy', state === 'sending');
  writeLine(card, text, isError);
  // A decided card may be the one an approved card of its run was waiting for: say again what they wait for.
  if (state === 'pending' || state === 'sending') return;
  for (const other of cardsOfRun(card.dataset['run'] ?? ''))
    if (other !== card && other.dataset['state'] === 'approved') writeLine(other, approvedText(other));
}

function writeLine(card: HTMLElement, text: string, isError = false): void {
  const line = card.querySelector<HTMLElement>('.state');
  if (line === null) return;
  line.textContent = text;
  line.classList.toggle('error', isError);
}

/** The card of an approval, if the page shows it. */
export const cardOf = (approvalId: string) => document.getElementById(`card-${approvalId}`);

/** The cards of a run. */
export const cardsOfRun = (runId: string) =>
  [...document.querySelectorAll<HTMLElement>('article.card')].filter((card) => card.dataset['run'] === runId);

/**
 * What an approved card says: "Approved by X, running…" once nothing else of its run waits, else what the run still
 * waits for ("Approved by X; the run waits for 1 more decision: write_file"), from the run's cards still pending.
 *
 * @example
 * approvedText(card); // 'Approved by alice; the run waits for 2 more decisions: write_file, send_email'
 */
export function approvedText(card: HTMLElement): string {
  const by = card.dataset['approvedBy'];
  const head = `${card.dataset['question'] === undefined ? 'Approved' : 'Answered'}${by === undefined ? '' : ` by ${by}`}`;
  const waiting = cardsOfRun(card.dataset['run'] ?? '')
    .filter((other) => other !== card && other.dataset['state'] === 'pending')
    .map((other) => other.dataset['tool'] ?? '');
  if (waiting.length === 0) return `${head}, running…`;
  return `${head}; the run waits for ${waiting.length} more decision${waiting.length === 1 ? '' : 's'}: ${waiting.join(', ')}`;
}

/** Marks a card approved (by `by`, when known), saying what its run still waits for. */
export function markApproved(card: HTMLElement, by: string | undefined): void {
  if (by !== undefined) card.dataset['approvedBy'] = by;
  setCardState(card, 'approved', approvedText(card));
}

/** A run event as the console reads it (see the server's `RunEvent`). */
export interface ConsoleEvent {
  readonly type: string;
  readonly runId: string;
  readonly approvalId?: string;
  readonly status?: 'succeeded' | 'failed';
  readonly result?: string;
  readonly entry?: {
    readonly approvalId?: string;
    readonly decision: 'approved' | 'denied';
    readonly source: string;
    readonly by?: string;
    readonly reason?: string;
  };
  readonly error?: { readonly message?: string };
  readonly reason?: string;
}

/**
 * Moves cards along as run events arrive: a decision (anyone's: this console, a link, Slack) marks its card approved
 * (running, or waiting for the run's other requests), denied or expired; the approved call's end marks it completed with the tool's result, or failed; a
 * run that fails or is cancelled takes its cards with it. Names, reasons, results and errors arrive through the server's
 * display filter (`consoleEventView`), and are set as text.
 *
 * @example
 * source.addEventListener('tool-finished', (message) => applyEvent(JSON.parse(message.data)));
 */
export function applyEvent(event: ConsoleEvent): void {
  if (event.type === 'approval-resolved' && event.entry?.approvalId !== undefined) {
    const card = cardOf(event.entry.approvalId);
    if (card === null) return;
    const { entry } = event;
    const by = entry.by === undefined ? '' : ` by ${entry.by}`;
    if (entry.source === 'expiry') setCardState(card, 'expired', 'Expired: nobody decided in time.');
    else if (entry.source === 'dismissed')
      setCardState(card, 'dismissed', `Dismissed${by}: closed without a decision; the call does not run.`);
    else if (entry.decision === 'approved') markApproved(card, entry.by);
    else setCardState(card, 'denied', `Denied${by}${entry.reason === undefined ? '' : `: ${entry.reason}`}`);
  } else if (event.type === 'tool-finished' && event.approvalId !== undefined) {
    const card = cardOf(event.approvalId);
    if (card === null) return;
    if (event.status === 'succeeded') setCardState(card, 'completed', `Completed: ${event.result ?? ''}`);
    else setCardState(card, 'failed', `Failed: ${event.result ?? ''}`, true);
  } else if (event.type === 'run-failed' || event.type === 'run-cancelled') {
    for (const card of cardsOfRun(event.runId)) {
      if (card.dataset['state'] !== 'pending' && card.dataset['state'] !== 'approved') continue;
      if (event.type === 'run-failed')
        setCardState(card, 'failed', `The run failed: ${event.error?.message ?? 'unknown error'}`, true);
      else setCardState(card, 'cancelled', `The run was cancelled: ${event.reason ?? ''}`);
    }
  }
}
