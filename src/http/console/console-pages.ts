// The console's pages: its headers, the page frame, sign-in, the pending approvals with their filter, and messages.
// A card (one pending approval) is approval-card.ts's.
import type { ApprovalRequest, PendingApprovalEntry } from '../../index.js';
import { escapeHtml } from '../../kit/index.js';
import { approvalCard, hidden } from './approval-card.js';
import type { ConsoleSession } from './console-session.js';
import type { TurnContext } from './turn-context.js';

/**
 * The console's headers: its own script and stylesheet only (no inline script, nothing external), no framing, no
 * referrer, no caching of pages that name pending decisions.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** Which pending approvals a console page shows (the filter form's fields, all optional). */
export interface ConsoleFilter {
  readonly agent?: string | undefined;
  readonly tool?: string | undefined;
  readonly connector?: string | undefined;
  readonly session?: string | undefined;
}

const e = escapeHtml;

/** A console page; `root` leads from the page's URL back to the app's root ('' at `/`, `'../'` under `/console/`). */
export function page(
  title: string,
  body: string,
  options: { readonly script: boolean; readonly root?: string },
): string {
  const root = options.root ?? '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${e(title)}</title><link rel="stylesheet" href="${root}console/assets/console.css">` +
    (options.script ? `<script type="module" src="${root}console/assets/main.js"></script>` : '') +
    `</head><body>${body}</body></html>`
  );
}

/**
 * The sign-in page `GET /` shows without a session: the app's API token and a name, or a reviewer's inbox link.
 *
 * @example
 * const html = signInPage({ error: 'That token is not right.', token: true, inbox: true, personal: false, name: true });
 */
export function signInPage(options: SignInOptions & { readonly error?: string }): string {
  const tokenLabel = options.personal
    ? options.name
      ? 'Your personal token (or the shared API token and your name)'
      : 'Your personal token'
    : 'API token';
  const nameField = options.name
    ? `<label for="name">Your name (recorded with each decision${options.personal ? '; not needed with a personal token, which names you' : ''})</label><input id="name" name="name" type="text" autocomplete="username"${options.personal ? '' : ' required'} maxlength="128">`
    : '';
  const tokenForm =
    `<form method="post" action="console/session"><fieldset><legend>With ${options.personal ? 'your token' : 'the API token'}</legend>` +
    (options.token
      ? `<label for="token">${tokenLabel}</label><input id="token" name="token" type="password" autocomplete="current-password" required>`
      : '') +
    nameField +
    '<p><button type="submit" class="approve">Sign in</button></p></fieldset></form>';
  const inboxForm = options.inbox
    ? '<form method="post" action="console/session"><fieldset><legend>With your inbox link</legend>' +
      '<label for="inbox">Inbox link (as it was sent to you)</label><input id="inbox" name="inbox" type="text" required>' +
      '<p><button type="submit">Sign in as its reviewer</button></p></fieldset></form>'
    : '';
  return page(
    'Sign in · countersign',
    '<header class="top"><h1>countersign console</h1></header><main class="signin"><h2>Sign in</h2>' +
      (options.error === undefined ? '' : `<p class="error" role="alert">${e(options.error)}</p>`) +
      tokenForm +
      inboxForm +
      '</main>',
    { script: false },
  );
}

/** Which ways to sign in the console offers. */
export interface SignInOptions {
  /** A token is asked for (the app has credentials). */
  readonly token: boolean;
  /** An inbox link signs in (the runtime has links). */
  readonly inbox: boolean;
  /** Personal tokens exist: a person's token names them. */
  readonly personal: boolean;
  /** A typed name may sign in with the shared token (no personal tokens, or `sharedTokenDecides`). */
  readonly name: boolean;
}

/** Soonest expiry first (no expiry last), then oldest first. */
export function byExpiry(a: PendingApprovalEntry, b: PendingApprovalEntry): number {
  return (
    (a.request.expiresAt ?? Number.POSITIVE_INFINITY) - (b.request.expiresAt ?? Number.POSITIVE_INFINITY) ||
    a.request.requestedAt - b.request.requestedAt
  );
}

/** The entries `filter` keeps. */
export function filtered(entries: readonly PendingApprovalEntry[], filter: ConsoleFilter): PendingApprovalEntry[] {
  return entries.filter(
    (entry) =>
      (filter.agent === undefined || entry.agentName === filter.agent) &&
      (filter.tool === undefined || entry.request.toolName === filter.tool) &&
      (filter.connector === undefined || entry.request.connector === filter.connector) &&
      (filter.session === undefined || entry.sessionId === filter.session),
  );
}

/** The cards of `entries` (already filtered and sorted) with what led to each call (`contexts`, by approval id), or a line saying nothing waits. */
export function cardList(
  entries: readonly PendingApprovalEntry[],
  session: Pick<ConsoleSession, 'csrf' | 'via'>,
  contexts: ReadonlyMap<string, TurnContext>,
): string {
  if (entries.length === 0) return '<p class="empty">Nothing is waiting for a decision.</p>';
  const byRun = new Map<string, ApprovalRequest[]>();
  for (const entry of entries) byRun.set(entry.runId, [...(byRun.get(entry.runId) ?? []), entry.request]);
  return entries
    .map((entry) =>
      approvalCard(entry, {
        csrf: session.csrf,
        runPending: byRun.get(entry.runId)!,
        edit: session.via === 'token',
        cancel: session.via === 'token',
        context: contexts.get(entry.request.approvalId),
      }),
    )
    .join('');
}

function filterForm(entries: readonly PendingApprovalEntry[], filter: ConsoleFilter): string {
  const field = (name: keyof ConsoleFilter, label: string, values: (string | undefined)[]) => {
    const options = [...new Set(values.filter((value): value is string => value !== undefined))].sort();
    if (filter[name] !== undefined && !options.includes(filter[name]!)) options.push(filter[name]!);
    return (
      `<label>${label}<select name="${name}" data-filter="${name}"><option value="">all</option>` +
      options.map((value) => `<option${value === filter[name] ? ' selected' : ''}>${e(value)}</option>`).join('') +
      '</select></label>'
    );
  };
  return (
    '<form method="get" action="./" class="filters" role="search" aria-label="Filter pending approvals">' +
    field(
      'agent',
      'Agent',
      entries.map((entry) => entry.agentName),
    ) +
    field(
      'tool',
      'Tool',
      entries.map((entry) => entry.request.toolName),
    ) +
    field(
      'connector',
      'Connector',
      entries.map((entry) => entry.request.connector),
    ) +
    field(
      'session',
      'Session',
      entries.map((entry) => entry.sessionId),
    ) +
    '<button type="submit">Filter</button></form>'
  );
}

/** The header every signed-in page shares: where you are, who you are, sign out. */
export function signedInHeader(session: ConsoleSession, root: string): string {
  return (
    `<header class="top"><h1>countersign console</h1><nav aria-label="Console"><a href="${root || './'}">Pending</a>` +
    // History, insights, grants and rules are for a token session: an inbox session sees what the inbox shows.
    (session.via === 'token'
      ? `<a href="${root}console/history">History</a><a href="${root}console/insights">Insights</a>` +
        `<a href="${root}console/grants">Grants</a><a href="${root}console/rules">Rules</a>`
      : '') +
    '</nav>' +
    `<form method="post" action="${root}console/session/end"><span>Signed in as <strong>${e(session.reviewer)}</strong></span> ` +
    `${hidden('csrf', session.csrf)}<button type="submit">Sign out</button></form></header>`
  );
}

/**
 * The console (`GET /` with a session): every pending approval across runs as a card, soonest expiry first.
 *
 * @example
 * const html = consolePage(session, (await runtime.pending({ limit: 500 })).items, {}, new Map());
 */
export function consolePage(
  session: ConsoleSession,
  entries: readonly PendingApprovalEntry[],
  filter: ConsoleFilter,
  contexts: ReadonlyMap<string, TurnContext>,
): string {
  const shown = filtered(entries, filter).sort(byExpiry);
  return page(
    'Pending approvals · countersign',
    signedInHeader(session, '') +
      `<main data-csrf="${e(session.csrf)}" data-reviewer="${e(session.reviewer)}"><h2>Waiting for a decision</h2>` +
      `<p class="hint js-only" hidden>Live. Keys: j/k or arrows move, Enter approves, Escape denies,${session.via === 'token' ? ' e edits,' : ''} a approves all of the run after a confirmation, ? help.</p>` +
      filterForm(entries, filter) +
      `<section id="cards" aria-label="Pending approvals">${cardList(shown, session, contexts)}</section></main>`,
    { script: true },
  );
}

/**
 * A message for a signed-in person (a form post that was refused), with the way back to the console.
 *
 * @example
 * const html = consoleMessagePage(session, 'Not decided', 'Someone else decided it first.', '../');
 */
export function consoleMessagePage(session: ConsoleSession, title: string, detail: string, root: string): string {
  return page(
    `${title} · countersign`,
    `${signedInHeader(session, root)}<main><h2>${e(title)}</h2><p class="error" role="alert">${e(detail)}</p><p><a href="${root || './'}">Back to the console</a></p></main>`,
    { script: false, root },
  );
}
