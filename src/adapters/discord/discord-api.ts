// One request to Discord's HTTP API through the kit's sendJson: Discord says how long to wait after a 429 in its
// JSON body (`retry_after`, seconds with fractions), more precisely than its Retry-After header.
import { sendJson } from '../../delivery/send-json.js';

export const DISCORD_API_URL = 'https://discord.com/api/v10';

/** A Discord id (snowflake). */
export const SNOWFLAKE_PATTERN = /^\d{1,20}$/;

function retryAfterSeconds(body: string): number | undefined {
  try {
    const seconds = (JSON.parse(body) as { retry_after?: unknown } | null)?.retry_after;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}

/** `fetchImpl` with a 429's JSON `retry_after` moved into the Retry-After header sendJson reads. */
function withBodyRetryAfter(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.status !== 429) return response;
    const body = await response.text();
    const seconds = retryAfterSeconds(body);
    const headers = new Headers(response.headers);
    if (seconds !== undefined) headers.set('retry-after', seconds.toFixed(3));
    return new Response(body, { status: 429, headers });
  };
}

export interface DiscordApiSettings {
  readonly apiUrl: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  /** Sent as `Authorization: Bot <token>`; interaction webhooks need none (their token is in the path). */
  readonly botToken?: string;
}

/** Calls `path` under the API; resolves with the JSON answer (or undefined for an empty one), throws a DeliveryError. */
export function discordApi(settings: DiscordApiSettings) {
  const fetchImpl = withBodyRetryAfter(settings.fetch);
  const headers = settings.botToken === undefined ? undefined : { authorization: `Bot ${settings.botToken}` };
  return async (method: 'POST' | 'PATCH', path: string, body: unknown): Promise<unknown> => {
    const answer = await sendJson(fetchImpl, `${settings.apiUrl}${path}`, { method, body, timeoutMs: settings.timeoutMs, service: 'Discord', ...(headers ? { headers } : {}) });
    return answer.text === '' ? undefined : (JSON.parse(answer.text) as unknown);
  };
}
