import { applyEvent, type ConsoleEvent, setCardState } from './card-state.js';

/** When each card appeared on the page (epoch ms): Enter does not approve a card that arrived a moment ago. */
export const arrivedAt = new WeakMap<Element, number>();

/** How long a card must have been on the page before a key approves it: focus never approves by accident. */
export const SETTLE_MS = 700;

/** Whether a card has been on the page long enough (`SETTLE_MS`) at `now` for a key to approve it. */
export const isSettled = (card: Element, now = Date.now()) => now - (arrivedAt.get(card) ?? 0) >= SETTLE_MS;

const cardsRoot = () => document.getElementById('cards');

/** The cards the filters show, in page order. */
export function visibleCards(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('#cards article.card')].filter((card) => !card.hidden);
}

const expiryOf = (card: HTMLElement) => Number(card.dataset['expires'] ?? Number.POSITIVE_INFINITY);

/** Shows only the cards the filter selects match (agent, tool, connector, session), and keeps the URL in step. */
export function applyFilters(): void {
  const selects = [...document.querySelectorAll<HTMLSelectElement>('select[data-filter]')];
  const url = new URL(location.href);
  for (const select of selects) {
    if (select.value === '') url.searchParams.delete(select.name);
    else url.searchParams.set(select.name, select.value);
  }
  history.replaceState(null, '', url);
  for (const card of document.querySelectorAll<HTMLElement>('#cards article.card')) {
    card.hidden = selects.some((select) => select.value !== '' && card.dataset[select.name] !== select.value);
  }
}

/**
 * Reads the pending cards again (`GET console/cards`, the server's rendering) and adds the ones the page lacks, in
 * expiry order; cards already shown keep their state.
 */
export async function addNewCards(): Promise<void> {
  const root = cardsRoot();
  if (root === null) return;
  const response = await fetch('console/cards', { credentials: 'same-origin' });
  if (!response.ok) return;
  const template = document.createElement('template');
  template.innerHTML = await response.text();
  const now = Date.now();
  for (const card of template.content.querySelectorAll<HTMLElement>('article.card')) {
    if (document.getElementById(card.id) !== null) continue;
    root.querySelector('.empty')?.remove();
    const before = [...root.querySelectorAll<HTMLElement>('article.card')].find(
      (other) => other.dataset['state'] === 'pending' && expiryOf(other) > expiryOf(card),
    );
    root.insertBefore(card, before ?? null);
    arrivedAt.set(card, now);
    card.dispatchEvent(new CustomEvent('card-added', { bubbles: true }));
  }
  applyFilters();
}

function remaining(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  if (hours > 0) return `${hours} h ${minutes % 60} min left`;
  if (minutes > 0) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s left`;
  return `${seconds} s left`;
}

/** Updates every countdown; a pending card past its expiry is shown expired (the runtime's clock has the last word). */
export function tickCountdowns(now = Date.now()): void {
  for (const countdown of document.querySelectorAll<HTMLElement>('.countdown[data-until]')) {
    const left = Number(countdown.dataset['until']) - now;
    countdown.textContent = left > 0 ? `(${remaining(left)})` : '(expired)';
    const card = countdown.closest<HTMLElement>('article.card');
    if (left <= 0 && card?.dataset['state'] === 'pending')
      setCardState(card, 'expired', 'Expired: it can no longer be approved.');
  }
}

/** Follows `GET /events`: a new request adds its card, decisions and results move cards along. */
export function followEvents(): EventSource {
  const source = new EventSource('events');
  source.addEventListener('approval-requested', () => void addNewCards());
  for (const type of ['approval-resolved', 'tool-finished', 'run-failed', 'run-cancelled']) {
    source.addEventListener(type, (message) =>
      applyEvent(JSON.parse((message as MessageEvent<string>).data) as ConsoleEvent),
    );
  }
  // A reconnect may have missed requests: read them again.
  source.addEventListener('open', () => void addNewCards());
  return source;
}
