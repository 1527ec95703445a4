import { sendJson } from '../../kit/index.js';

export const DISCORD_API_URL = 'https://discord.com/api/v10';

/** A Discord id (snowflake). */
export const SNOWFLAKE_PATTERN = /^\d{1,20}$/;

export interface DiscordApiSettings {
  readonly apiUrl: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  /** Sent as `Authorization: Bot <token>`; interaction webhooks need none (their token is in the path). */
  readonly botToken?: string;
}

/** Calls `path` under the API; resolves with the JSON answer (or undefined for an empty one), throws a DeliveryError. */
export function discordApi(settings: DiscordApiSettings) {
  const headers = settings.botToken === undefined ? undefined : { authorization: `Bot ${settings.botToken}` };
  return async (method: 'POST' | 'PATCH', path: string, body: unknown): Promise<unknown> => {
    const answer = await sendJson(settings.fetch, `${settings.apiUrl}${path}`, {
      method,
      body,
      timeoutMs: settings.timeoutMs,
      service: 'Discord',
      ...(headers ? { headers } : {}),
    });
    return answer.text === '' ? undefined : (JSON.parse(answer.text) as unknown);
  };
}
