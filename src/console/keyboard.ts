import { askDenyReason, cancelDeny, decide } from './actions.js';
import { confirmApproveAll } from './approve-all-dialog.js';
import { editArguments } from './editor.js';
import { isSettled, visibleCards } from './live.js';
import { focusAnswer } from './question.js';

const HELP =
  'j or ↓: next card · k or ↑: previous card · Enter: approve (on a question: go to its form; Enter in a field answers) · Escape: deny (type a reason, Enter denies, Escape cancels) · ' +
  'd: dismiss (close without a decision) · e: edit the arguments · a: approve all of the run (after a confirmation listing the calls) · ?: this help. ' +
  'A key does nothing on a card that does not offer its decision.';

/** Whether a card shows the button of `action`: a decision its request does not offer has none, so its key does nothing. */
const offers = (card: HTMLElement | undefined, action: string): card is HTMLElement =>
  card?.querySelector(`[data-action=${action}]`) != null;

function current(): HTMLElement | undefined {
  const active = document.activeElement?.closest<HTMLElement>('article.card');
  return active ?? visibleCards().find((card) => card.classList.contains('current'));
}

/** Makes a card the current one: focused, outlined, scrolled into view. */
export function select(card: HTMLElement | undefined): void {
  if (card === undefined) return;
  for (const other of document.querySelectorAll('article.card.current')) other.classList.remove('current');
  card.classList.add('current');
  card.focus();
}

function move(step: 1 | -1): void {
  const cards = visibleCards();
  if (cards.length === 0) return;
  const index = cards.indexOf(current() as HTMLElement);
  select(cards[index === -1 ? 0 : Math.min(cards.length - 1, Math.max(0, index + step))]);
}

function toggleHelp(): void {
  let help = document.getElementById('help') as HTMLDialogElement | null;
  if (help === null) {
    help = document.createElement('dialog');
    help.id = 'help';
    help.setAttribute('aria-labelledby', 'help-title');
    help.innerHTML =
      '<h2 id="help-title">Keyboard</h2><p></p><form method="dialog"><button type="submit">Close</button></form>';
    help.querySelector('p')!.textContent = HELP;
    document.body.append(help);
  }
  if (help.open) help.close();
  else help.showModal();
}

/** The console's keys (see `HELP`). Keys typed into a field belong to the field, except Enter and Escape in a card's reason. */
export function bindKeyboard(): void {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    const card = current();
    if (target instanceof HTMLInputElement && target.name === 'reason' && card?.dataset['denying'] === 'true') {
      if (event.key === 'Enter') {
        event.preventDefault();
        delete card.dataset['denying'];
        void decide(card, 'deny');
      } else if (event.key === 'Escape') {
        event.preventDefault();
        cancelDeny(card);
      }
      return;
    }
    if (target.closest('input, textarea, select, dialog') !== null) return;
    const actions: Record<string, () => void> = {
      j: () => move(1),
      ArrowDown: () => move(1),
      k: () => move(-1),
      ArrowUp: () => move(-1),
      '?': toggleHelp,
      Enter: () => {
        // A question is answered with its form, never approved bare: Enter goes to its first field.
        if (card?.dataset['question'] !== undefined) focusAnswer(card);
        else if (offers(card, 'approve') && isSettled(card)) void decide(card, 'approve');
      },
      Escape: () => offers(card, 'deny') && askDenyReason(card),
      // A quorum request's card has no Dismiss button (a dismissal is not a vote), so the key does nothing there.
      d: () => {
        if (offers(card, 'dismiss') && isSettled(card)) void decide(card, 'dismiss');
      },
      // A card without an Edit button (an inbox session's, or one whose request offers no edit) does nothing either.
      e: () => offers(card, 'edit') && editArguments(card),
      a: () => offers(card, 'approve') && confirmApproveAll(card),
    };
    const action = actions[event.key];
    if (action === undefined) return;
    event.preventDefault();
    action();
  });
}
