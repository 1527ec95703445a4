// Error text that others read (a run's `error`, served by GET /runs/:id and sent in
// run.failed webhooks; dead letters; the chat notifiers' onError) is built here, and
// only here. A URL often holds a secret in its user-info, path or query
// (hooks.slack.com/services/T/B/XXXX, ?key=...), and a model provider's error body
// can echo the API key, so neither ever reaches such a text: a URL is cut to its
// host, and a provider's body stays on the error object for the operator's onError.

import { isCountersignError } from '../errors/base.js';
import { urlSpans } from './url-spans.js';

/** What a sentence may put right after a URL: "(see https://x.example/a)." */
const isTrailing = (char: string) => ').,;:!?]'.includes(char);

function hostOnly(match: string): string {
  // Punctuation after a URL is the sentence's, not the URL's.
  let cut = match.length;
  while (cut > 0 && isTrailing(match[cut - 1]!)) cut--;
  const url = match.slice(0, cut);
  const trailing = match.slice(cut);
  try {
    return `${new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`).host}/…${trailing}`;
  } catch {
    return `(a URL)${trailing}`;
  }
}

/** The longest text scrubbed: nobody reads more in an error. */
const MAX_SCRUBBED = 4000;

function withoutUrls(whole: string): string {
  const text = whole.length > MAX_SCRUBBED ? `${whole.slice(0, MAX_SCRUBBED)}…` : whole;
  let shown = '';
  let from = 0;
  for (const [start, end] of urlSpans(text)) {
    shown += text.slice(from, start) + hostOnly(text.slice(start, end));
    from = end;
  }
  return shown + text.slice(from);
}

/**
 * `text` fit to show others: every URL cut to its host (`hooks.slack.com/…`),
 * whitespace runs made one space, at most `limit` characters.
 *
 * @example
 * publicText('POST https://user:pw@hooks.slack.com/services/T/B/XXXX failed'); // 'POST hooks.slack.com/… failed'
 */
export function publicText(text: string, limit = 500): string {
  const clean = withoutUrls(text).replace(/\s+/g, ' ').trim();
  return clean.length <= limit ? clean : `${clean.slice(0, limit - 1)}…`;
}

/**
 * `error` as it may be handed to a reporter whose output others read: the same
 * error when its message (and its cause's) holds no URL, else a plain `Error`
 * with the same `name` and `code` and the message made public (the cause, which
 * could quote the URL again, is left behind). `scrub` removes anything else
 * first, e.g. a bot token.
 *
 * @example
 * report(publicError(error));
 */
export function publicError(error: unknown, scrub: (text: string) => string = (text) => text): unknown {
  const clean = (text: string) => withoutUrls(scrub(text));
  if (!(error instanceof Error)) return typeof error === 'string' ? clean(error) : error;
  const cause = error.cause instanceof Error ? error.cause.message : typeof error.cause === 'string' ? error.cause : '';
  if (clean(error.message) === error.message && clean(cause) === cause) return error;
  const copy = new Error(clean(error.message));
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? Object.assign(copy, { code }) : copy;
}

const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  400: 'bad request',
  401: 'authentication',
  402: 'payment required',
  403: 'permission denied',
  404: 'not found',
  408: 'timed out',
  409: 'conflict',
  413: 'request too large',
  422: 'unprocessable request',
  429: 'rate limited',
  500: 'provider error',
  502: 'bad gateway',
  503: 'unavailable',
  504: 'gateway timeout',
};

/**
 * `HTTP 401 (authentication)`: a status and what it means, for error texts.
 *
 * @example
 * httpStatusText(429); // 'HTTP 429 (rate limited)'
 */
export function httpStatusText(status: number): string {
  const meaning = STATUS_MEANINGS[status] ?? (status >= 500 ? 'provider error' : undefined);
  return meaning === undefined ? `HTTP ${status}` : `HTTP ${status} (${meaning})`;
}

/** An HTTP status a provider SDK put on its error (`status`, or `statusCode` as the AI SDK does). */
function statusOf(error: unknown): number | undefined {
  const carrier = error as { status?: unknown; statusCode?: unknown } | null | undefined;
  const status = carrier?.status ?? carrier?.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}

/** A system error code (ECONNREFUSED, ENOTFOUND …) on the error or its cause. */
function systemCodeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z0-9_]{2,40}$/.test(code)) return code;
  }
  return undefined;
}

/** What the public text of a failed model call says about where its full error went. */
const DETAILS_WENT = {
  onError: 'the operator (onError)',
  console: 'console.error in the process that ran it (no onError was given)',
} as const;

/**
 * The public text of a failed model call, for `run.error.message`: the HTTP
 * status, a timeout or a network error code, never the error's own message
 * (a provider's body can echo the API key; a URL can hold one) unless it is
 * one of countersign's own errors. `detailsWent` says where the full error
 * went: the operator's `onError`, or, with none, console.error (which the
 * text then names, as nobody may know to look there).
 *
 * @example
 * modelFailureText(Object.assign(new Error('Incorrect API key provided: sk-...'), { status: 401 }), 'onError'); // 'The model call failed: HTTP 401 (authentication).'
 */
export function modelFailureText(error: unknown, detailsWent: keyof typeof DETAILS_WENT): string {
  const where = DETAILS_WENT[detailsWent];
  const said = (text: string) => (detailsWent === 'console' ? `${text} The details went to ${where}.` : text);
  const status = statusOf(error);
  if (status !== undefined) return said(`The model call failed: ${httpStatusText(status)}.`);
  if (error instanceof Error && error.name === 'TimeoutError') return said('The model call failed: it timed out.');
  const system = systemCodeOf(error);
  if (system !== undefined) return said(`The model call failed: the provider could not be reached (${system}).`);
  // countersign's own errors are worded to be read by anyone (a provider's body is never in their message).
  if (isCountersignError(error)) return said(`The model call failed: ${publicText(error.message, 300)}`);
  return `The model call failed; the details went to ${where}, not here.`;
}
