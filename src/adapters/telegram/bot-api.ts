// The Telegram Bot API as countersign calls it: one JSON POST to `${apiUrl}/bot<token>/<method>` through the
// delivery kit's sendJson (no redirects, timeouts, retryable statuses), Telegram's own answer read (`ok`,
// `description`, `parameters.retry_after`), and the bot token removed from every error it throws.
import { z } from 'zod';
import { DeliveryError } from '../../delivery/delivery-error.js';
import { parseRetryAfter } from '../../delivery/retry-after.js';
import { sendJson } from '../../delivery/send-json.js';

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** A bot token as BotFather issues it. */
export const TELEGRAM_BOT_TOKEN_PATTERN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

export interface BotApi {
  /** One call; resolves with Telegram's `result`, throws a `DeliveryError` that never holds the bot token. */
  call(method: string, body: Readonly<Record<string, unknown>>): Promise<unknown>;
  /** Removes the bot token (and any other bot's) from text. */
  redact(text: string): string;
}

interface Answer {
  readonly ok?: unknown;
  readonly result?: unknown;
  readonly description?: unknown;
  readonly parameters?: { readonly retry_after?: unknown };
}

function readAnswer(text: string): Answer | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Answer) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Telegram says how long to wait in its body (`parameters.retry_after`, seconds), not always in a header: a
 * refusal is given the `Retry-After` header it meant, so sendJson's one parser reads it.
 */
function retryAfterFromBody(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    // A large body is no Bot API answer: sendJson reads (the start of) it as it is.
    if (response.status < 400 || response.headers.has('retry-after') || Number(response.headers.get('content-length') ?? 0) > 65_536) return response;
    const text = await response.text().catch(() => '');
    const seconds = readAnswer(text)?.parameters?.retry_after;
    const headers = new Headers(response.headers);
    const waitMs = typeof seconds === 'number' ? parseRetryAfter(seconds) : undefined;
    if (waitMs !== undefined) headers.set('retry-after', String(waitMs / 1000));
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
}

/** A Bot API caller on `apiUrl` with `botToken`. */
export function botApi(options: { readonly apiUrl: string; readonly botToken: string; readonly fetch: typeof fetch; readonly timeoutMs: number }): BotApi {
  const base = options.apiUrl.replace(/\/+$/, '');
  const fetchImpl = retryAfterFromBody(options.fetch);
  const redact = (text: string) => text.split(options.botToken).join('<bot token>').replace(/\d{1,20}:[A-Za-z0-9_-]{20,}/g, '<bot token>');
  const refuse = (error: DeliveryError) =>
    new DeliveryError(redact(error.message), {
      retryable: error.retryable,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      ...(error.status === undefined ? {} : { status: error.status }),
    });

  return {
    redact,
    async call(method, body) {
      let text: string;
      try {
        ({ text } = await sendJson(fetchImpl, `${base}/bot${options.botToken}/${method}`, { body, timeoutMs: options.timeoutMs, service: `Telegram ${method}` }));
      } catch (error) {
        // Its cause could quote the URL, and the URL holds the token: only the redacted message goes on.
        throw error instanceof DeliveryError ? refuse(error) : new DeliveryError(redact(`Telegram ${method} failed: ${String(error)}`), { retryable: false });
      }
      const answer = readAnswer(text);
      if (answer?.ok === true) return answer.result;
      const description = typeof answer?.description === 'string' ? answer.description : 'an answer that is not a Bot API answer';
      throw new DeliveryError(redact(`Telegram refused ${method}: ${description.slice(0, 200)}`), { retryable: false });
    },
  };
}

const messageSchema = z.looseObject({ message_id: z.number().int(), chat: z.looseObject({ id: z.number().int().safe() }) });

/** The chat and id of a message the Bot API says it sent; a `DeliveryError` for an answer without them. */
export function sentMessage(result: unknown): { readonly chatId: number; readonly messageId: number } {
  const parsed = messageSchema.safeParse(result);
  if (!parsed.success) throw new DeliveryError('Telegram sent a message but its answer names no message_id and chat', { retryable: false });
  return { chatId: parsed.data.chat.id, messageId: parsed.data.message_id };
}
