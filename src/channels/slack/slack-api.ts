// One call of Slack's Web API (chat.postMessage, chat.update, views.open): a JSON POST with the bot token, whose
// `ok: false` answers become DeliveryErrors, retryable for the errors a later try may not repeat.
import { DeliveryError, parseRetryAfter, sendJson } from '../../kit/index.js';

/** Where and how the Web API is called. */
export interface SlackApi {
  readonly apiUrl: string;
  readonly token: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

/** Web API errors that a later try may not repeat. */
const TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

export const DEFAULT_API_URL = 'https://slack.com/api';

/** A Slack token as `createSlackNotifier` and `createSlackActions` take it (`xoxb-...`). */
export const SLACK_TOKEN_PATTERN = /^xox[a-z]-[\x21-\x7e]{4,500}$/;

/** Calls `method` with `body`; resolves with Slack's answer when it says `ok: true`, else throws a `DeliveryError`. */
export async function callSlack(
  api: SlackApi,
  method: string,
  body: Readonly<Record<string, unknown>>,
): Promise<Readonly<Record<string, unknown>>> {
  const answer = await sendJson(api.fetch, `${api.apiUrl.replace(/\/+$/, '')}/${method}`, {
    headers: { authorization: `Bearer ${api.token}` },
    body,
    timeoutMs: api.timeoutMs,
    service: 'Slack',
  });
  let parsed: { ok?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(answer.text) as typeof parsed;
  } catch {
    throw new DeliveryError(`Slack answered ${method} with a body that is not JSON`, {
      retryable: true,
      status: answer.status,
    });
  }
  if (parsed.ok === true) return parsed as Record<string, unknown>;
  const code = typeof parsed.error === 'string' ? parsed.error.slice(0, 100) : 'unknown_error';
  const retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
  throw new DeliveryError(`Slack refused ${method}: ${code}`, {
    retryable: TRANSIENT.has(code),
    status: answer.status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}
