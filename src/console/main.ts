// The console's script: everything here enhances the server's page, which approves and denies without it. Every
// console page loads it for its local times; the pending page (`main[data-csrf]`) gets the rest.
import { type ConsoleDecision, cancelRun, decide, decideAll } from './actions.js';
import { confirmApproveAll } from './approve-all-dialog.js';
import { cardsOfRun } from './card-state.js';
import { editArguments } from './editor.js';
import { answerQuestion } from './question.js';
import { bindKeyboard, select } from './keyboard.js';
import { applyFilters, arrivedAt, followEvents, tickCountdowns } from './live.js';
import { showLocalTimes } from './local-times.js';

const DECISIONS: ReadonlySet<string> = new Set<ConsoleDecision>(['approve', 'run', 'session', 'deny', 'dismiss']);

showLocalTimes(document);
document.addEventListener('card-added', (event) => showLocalTimes(event.target as HTMLElement));

const main = document.querySelector<HTMLElement>('main[data-csrf]');
if (main !== null) {
  for (const element of document.querySelectorAll<HTMLElement>('.js-only')) element.hidden = false;
  const loadedAt = Date.now();
  for (const card of document.querySelectorAll('article.card')) arrivedAt.set(card, loadedAt);

  main.addEventListener('submit', (event) => {
    const form = event.target as HTMLFormElement;
    const card = form.closest<HTMLElement>('article.card');
    const decision = (event.submitter as HTMLButtonElement | null)?.value;
    if (card === null || decision === undefined) return;
    event.preventDefault();
    if (form.classList.contains('cancel-run')) void cancelRun(card);
    else if (form.classList.contains('all') && decision === 'deny')
      void decideAll(
        cardsOfRun(card.dataset['run'] ?? '').filter((other) => other.dataset['state'] === 'pending'),
        'deny',
      );
    else if (form.classList.contains('all')) confirmApproveAll(card);
    else if (form.classList.contains('question') && decision === 'answer') void answerQuestion(card, form);
    else void decide(card, DECISIONS.has(decision) ? (decision as ConsoleDecision) : 'approve');
  });
  main.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLElement>('[data-action=edit]');
    const card = button?.closest<HTMLElement>('article.card');
    if (card) editArguments(card);
  });
  main.addEventListener('focusin', (event) => {
    const card = (event.target as HTMLElement).closest<HTMLElement>('article.card');
    if (card !== null && !card.classList.contains('current')) {
      for (const other of document.querySelectorAll('article.card.current')) other.classList.remove('current');
      card.classList.add('current');
    }
  });
  for (const filter of document.querySelectorAll('select[data-filter]'))
    filter.addEventListener('change', applyFilters);
  document.querySelector('form.filters button')?.setAttribute('hidden', '');

  bindKeyboard();
  followEvents();
  tickCountdowns();
  setInterval(tickCountdowns, 1000);
  select(document.querySelector<HTMLElement>('#cards article.card:not([hidden])') ?? undefined);
}
