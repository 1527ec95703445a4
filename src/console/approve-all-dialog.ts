import { decideAll } from './actions.js';
import { cardsOfRun } from './card-state.js';
import { isSettled } from './live.js';

/** How much of a call's description the confirmation lists. */
const DESCRIPTION_MAX = 160;

let dialog: HTMLDialogElement | undefined;

function confirmDialog(): HTMLDialogElement {
  if (dialog !== undefined) return dialog;
  dialog = document.createElement('dialog');
  dialog.id = 'approve-all';
  dialog.setAttribute('aria-labelledby', 'approve-all-title');
  dialog.setAttribute('aria-describedby', 'approve-all-note');
  dialog.innerHTML =
    '<form method="dialog"><h2 id="approve-all-title"></h2>' +
    '<p id="approve-all-note">Each of these calls runs once approved. Enter approves them all; Escape cancels.</p><ul class="calls"></ul>' +
    '<p class="later" hidden></p>' +
    '<p class="actions"><button type="submit" value="approve" class="approve"></button> <button type="submit" value="cancel">Cancel</button></p></form>';
  document.body.append(dialog);
  return dialog;
}

const short = (text: string) => (text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX - 1)}…`);

/**
 * Asks before approving every pending call of a card's run: a dialog lists each call (tool and description) it would
 * approve; Enter or its button approves exactly those, Escape or Cancel approves nothing. A card that arrived a moment
 * ago (or arrives while the dialog is open) is not on the list, so it is not approved: it waits for its own decision.
 * Nor is one whose request does not offer approving it once (it shows no Approve button).
 *
 * @example
 * confirmApproveAll(card);
 */
export function confirmApproveAll(card: HTMLElement): void {
  const runId = card.dataset['run'];
  if (runId === undefined) return;
  const now = Date.now();
  const pending = cardsOfRun(runId).filter(
    (other) => other.dataset['state'] === 'pending' && other.querySelector('[data-action=approve]') !== null,
  );
  const listed = pending.filter((other) => isSettled(other, now));
  if (listed.length === 0) return;
  const confirm = confirmDialog();
  const calls = listed.length === 1 ? 'call' : 'calls';
  confirm.querySelector('h2')!.textContent = `Approve ${listed.length} ${calls} of run ${runId}?`;
  const list = confirm.querySelector('ul')!;
  list.replaceChildren(
    ...listed.map((other) => {
      const item = document.createElement('li');
      const tool = document.createElement('code');
      tool.textContent = other.dataset['tool'] ?? '';
      item.append(tool, ` ${short(other.querySelector('.description')?.textContent ?? '')}`);
      return item;
    }),
  );
  const later = confirm.querySelector<HTMLElement>('p.later')!;
  const left = pending.length - listed.length;
  later.hidden = left === 0;
  later.textContent = `${left} more ${left === 1 ? 'request' : 'requests'} of this run arrived a moment ago and ${left === 1 ? 'is' : 'are'} not included: decide ${left === 1 ? 'it' : 'them'} on ${left === 1 ? 'its own card' : 'their own cards'}.`;
  const approve = confirm.querySelector<HTMLButtonElement>('button[value=approve]')!;
  approve.textContent = `Approve these ${listed.length}`;
  confirm.querySelector('form')!.onsubmit = (event) => {
    if ((event.submitter as HTMLButtonElement | null)?.value === 'approve') void decideAll(listed, 'approve');
  };
  confirm.onclose = () => card.focus();
  confirm.showModal();
  approve.focus();
}
