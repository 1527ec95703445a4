// The Telegram Bot API as countersign calls it: one JSON POST to `${apiUrl}/bot<token>/<method>` through the
// delivery kit's sendJson (no redirects, timeouts, retryable statuses, the wait of `parameters.retry_after`),
// Telegram's own answer read (`ok`, `description`), and the bot token removed from every error it throws.
import { z } from 'zod';
import { DeliveryError, sendJson } from '../../kit/index.js';

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
}

function readAnswer(text: string): Answer | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Answer) : undefined;
  } catch {
    return undefined;
  }
}

/** A Bot API caller on `apiUrl` with `botToken`. */
export function botApi(options: {
  readonly apiUrl: string;
  readonly botToken: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}): BotApi {
  const base = options.apiUrl.replace(/\/+$/, '');
  const redact = (text: string) =>
    text
      .split(options.botToken)
      .join('<bot token>')
      .replace(/\d{1,20}:[A-Za-z0-9_-]{20,}/g, '<bot token>');
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
        ({ text } = await sendJson(options.fetch, `${base}/bot${options.botToken}/${method}`, {
          body,
          timeoutMs: options.timeoutMs,
          service: `Telegram ${method}`,
        }));
      } catch (error) {
        // Its cause could quote the URL, and the URL holds the token: only the redacted message goes on.
        throw error instanceof DeliveryError
          ? refuse(error)
          : new DeliveryError(redact(`Telegram ${method} failed: ${String(error)}`), { retryable: false });
      }
      const answer = readAnswer(text);
      if (answer?.ok === true) return answer.result;
      const description =
        typeof answer?.description === 'string' ? answer.description : 'an answer that is not a Bot API answer';
      throw new DeliveryError(redact(`Telegram refused ${method}: ${description.slice(0, 200)}`), { retryable: false });
    },
  };
}

const messageSchema = z.looseObject({
  message_id: z.number().int(),
  chat: z.looseObject({ id: z.number().int().safe() }),
});

/** The chat and id of a message the Bot API says it sent; a `DeliveryError` for an answer without them. */
export function sentMessage(result: unknown): { readonly chatId: number; readonly messageId: number } {
  const parsed = messageSchema.safeParse(result);
  if (!parsed.success)
    throw new DeliveryError('Telegram sent a message but its answer names no message_id and chat', {
      retryable: false,
    });
  return { chatId: parsed.data.chat.id, messageId: parsed.data.message_id };
}
