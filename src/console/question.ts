import { reviewer } from './actions.js';
import { ConsoleRequestError, postJson } from './api.js';
import { markApproved, setCardState } from './card-state.js';

/** Goes to a question card's first field, to answer from the keyboard. */
export function focusAnswer(card: HTMLElement): void {
  card
    .querySelector<HTMLElement>(
      'form.question .field input, form.question .field select, form.question .field textarea',
    )
    ?.focus();
}

/** Clears the problems a refused answer left on the card's fields. */
function clearProblems(form: HTMLFormElement): void {
  for (const error of form.querySelectorAll('.field-error')) error.remove();
  for (const field of form.querySelectorAll('.field[aria-invalid]')) field.removeAttribute('aria-invalid');
}

/** Shows each problem under its field (as text), and goes to the first one. */
function showProblems(form: HTMLFormElement, issues: ConsoleRequestError['issues']): void {
  let first: HTMLElement | undefined;
  for (const issue of issues) {
    const field = [...form.querySelectorAll<HTMLElement>('.field')].find(
      (item) => item.dataset['field'] === issue.path,
    );
    if (field === undefined) continue;
    const error = document.createElement('span');
    error.className = 'field-error';
    error.textContent = `${field.querySelector('legend, label')?.textContent ?? issue.path} ${issue.message}`;
    field.append(error);
    field.setAttribute('aria-invalid', 'true');
    first ??= field;
  }
  first?.querySelector<HTMLElement>('input, select, textarea')?.focus();
}

/**
 * Sends the answer typed on a question card as the signed-in reviewer: the form's `answer.<field>` pairs, which the
 * server reads and checks. A refused answer leaves the card pending with each field's problem under it.
 *
 * @example
 * await answerQuestion(card, card.querySelector('form.question')!);
 */
export async function answerQuestion(card: HTMLElement, form: HTMLFormElement): Promise<void> {
  if (card.dataset['state'] !== 'pending') return;
  clearProblems(form);
  const answerFields = [...new FormData(form)]
    .filter(([name]) => name.startsWith('answer.'))
    .map(([name, value]) => [name, String(value)]);
  setCardState(card, 'sending', 'Answering…');
  try {
    await postJson('console/decide', {
      runId: card.dataset['run'],
      approvalId: card.dataset['approval'],
      decision: 'answer',
      answerFields,
      ...(card.dataset['signature'] === undefined ? {} : { signature: card.dataset['signature'] }),
    });
    if (card.dataset['state'] === 'pending') markApproved(card, reviewer());
  } catch (error) {
    if (card.dataset['state'] !== 'pending') return;
    const refused = error instanceof ConsoleRequestError;
    setCardState(
      card,
      'pending',
      refused ? `Not recorded: ${error.message}` : 'Not recorded: the server could not be reached; try again.',
      true,
    );
    if (refused) showProblems(form, error.issues);
  }
}
