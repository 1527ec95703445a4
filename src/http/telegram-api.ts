// A small Telegram Bot API client shared by the notifier and the webhook route:
// JSON posts to `${apiUrl}/bot<token>/<method>`, no redirects followed, and
// the bot token redacted from every error message it produces.

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** What `callback_data` of the buttons starts with; the webhook acts only on these. */
export const TELEGRAM_CALLBACK_PREFIX = 'cs:';

/** The store key a button's short id maps to its link token under. */
export const telegramKey = (id: string) => `telegram:${id}`;

/** An error the Bot API (or the network) gave; `retry` says whether another try could help. */
export class TelegramApiError extends Error {
  readonly retry: boolean;
  readonly waitMs: number | undefined;

  constructor(message: string, retry: boolean, waitMs?: number) {
    super(message);
    this.name = 'TelegramApiError';
    this.retry = retry;
    this.waitMs = waitMs;
  }
}

/**
 * Escapes the characters Telegram's HTML parse mode gives a meaning (`&`, `<`, `>`),
 * so text a model wrote cannot become markup or a link.
 *
 * @example
 * escapeTelegram('<b>hi</b> & bye'); // '&lt;b&gt;hi&lt;/b&gt; &amp; bye'
 */
export function escapeTelegram(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/** Cuts escaped text to `limit` characters, never inside an entity, saying that it was cut. */
export function fitTelegram(escaped: string, limit: number, closing = ''): string {
  if (escaped.length + closing.length <= limit) return escaped + closing;
  const note = `\n… (cut: ${escaped.length} characters in all)`;
  const kept = escaped.slice(0, Math.max(0, limit - closing.length - note.length)).replace(/&[a-z]{0,3}$/, '');
  return kept + closing + note;
}

/** How a decider reads in a Telegram message, escaped. */
export function telegramWho(by: string | undefined): string {
  if (by === undefined) return 'someone';
  const user = /^telegram:(-?\d{1,20})$/.exec(by);
  return user ? `Telegram user ${user[1]}` : escapeTelegram(by);
}

export interface BotApi {
  /** One call; resolves with `result`, throws `TelegramApiError` (the token never in its message). */
  call(method: string, body: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** Removes the bot token from any text. */
  redact(text: string): string;
}

/**
 * A Bot API caller on `apiUrl` with `botToken`.
 *
 * @example
 * const api = botApi({ apiUrl: 'https://api.telegram.org', botToken, fetch });
 * await api.call('sendMessage', { chat_id: chatId, text: 'hello' });
 */
export function botApi(options: { readonly apiUrl: string; readonly botToken: string; readonly fetch: typeof fetch }): BotApi {
  const base = options.apiUrl.replace(/\/+$/, '');
  const redact = (text: string) => text.split(options.botToken).join('<bot token>').replace(/bot\d{1,20}:[A-Za-z0-9_-]{10,}/g, 'bot<bot token>');
  const call = async (method: string, body: Record<string, unknown>, timeoutMs = 10_000): Promise<unknown> => {
    let response: Response;
    try {
      response = await options.fetch(`${base}/bot${options.botToken}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}` : String(error);
      throw new TelegramApiError(redact(`Telegram could not be reached for ${method}: ${cause}`), true);
    }
    const text = (await response.text().catch(() => '')).slice(0, 2000);
    let answer: { ok?: unknown; result?: unknown; description?: unknown; parameters?: { retry_after?: unknown } } | undefined;
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      answer = undefined;
    }
    if (response.status === 429) {
      const seconds = Number(answer?.parameters?.retry_after ?? response.headers.get('retry-after'));
      throw new TelegramApiError(`Telegram answered ${method} with HTTP 429 (rate limited)`, true, Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : undefined);
    }
    if (response.status >= 300 && response.status < 400) {
      throw new TelegramApiError(`Telegram answered ${method} with HTTP ${response.status} (a redirect, not followed)`, false);
    }
    if (answer === undefined || typeof answer !== 'object' || answer === null) {
      throw new TelegramApiError(`Telegram answered ${method} with HTTP ${response.status} and a body that is not JSON`, response.status >= 500);
    }
    if (answer.ok !== true) {
      const description = typeof answer.description === 'string' ? answer.description.replace(/\s+/g, ' ').slice(0, 200) : 'no description';
      throw new TelegramApiError(redact(`Telegram refused ${method} (HTTP ${response.status}): ${description}`), response.status >= 500);
    }
    return answer.result;
  };
  return { call, redact };
}
