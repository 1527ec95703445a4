import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { LinkedRuntime, ResumeMode } from '../../index.js';
import {
  type ChannelRoute,
  functionSchema,
  publicError,
  optionsObject,
  parseOptions,
  problem,
  problemFor,
  problemResponse,
  parseJsonBody,
  readRawBody,
  answerOptionsShape,
  resumeModeOf,
} from '../../kit/index.js';
import { linkedRuntimeSchema } from '../channel-options.js';
import { botApi } from './bot-api.js';
import { answerButton, isOurButton } from './button-click.js';
import { answerReason } from './deny-reason.js';
import { answerTyped } from './question-answers.js';
import { apiUrlSchema, botTokenSchema } from './telegram-notifier.js';
import { updateSchema } from './update-schema.js';
import type { TelegramUpdatesErrorContext, UpdateHandling } from './update-handling.js';

/**
 * Options of `createTelegramUpdates`.
 *
 * @example
 * const options: TelegramUpdatesOptions = { runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, secretToken: process.env.TELEGRAM_WEBHOOK_SECRET! };
 */
export interface TelegramUpdatesOptions {
  /** Spends the buttons' tokens: a runtime made with `createRuntime({ links: { secret } })`, the notifier's. */
  readonly runtime: LinkedRuntime;
  /** The bot's token, to answer clicks and edit cards; a secret, never in an error. */
  readonly botToken: string;
  /** The `secret_token` given to `setWebhook` (1–256 of `A-Za-z0-9_-`); Telegram sends it as `X-Telegram-Bot-Api-Secret-Token`. */
  readonly secretToken: string;
  /** The Bot API base. Default `https://api.telegram.org`. */
  readonly apiUrl?: string;
  /** Where a decided run goes on (see `ResumeMode`): `'inline'` (default) here, `'enqueue'` on a worker through the runtime's queue, `'record'` in another process that follows it. */
  readonly resumeMode?: ResumeMode;
  /** How long a click waits for the run to pause or end before saying it is carrying on. Default 10 s. */
  readonly resumeTimeoutMs?: number;
  /** Largest update accepted, in bytes. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Used to call the Bot API. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Failures after the 200 (Telegram is never told); their messages hold no bot token and no URL. */
  readonly onError?: (error: unknown, context: TelegramUpdatesErrorContext) => void;
}

/** Telegram's rule for a webhook's secret_token. */
const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** How long an update_id is remembered: Telegram gives up redelivering well within a day. */
const UPDATE_KEPT_MS = 86_400_000;

const optionsSchema = optionsObject({
  ...answerOptionsShape,
  runtime: linkedRuntimeSchema,
  botToken: botTokenSchema,
  secretToken: z
    .string()
    .regex(
      SECRET_TOKEN_PATTERN,
      "must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)",
    ),
  apiUrl: apiUrlSchema.optional(),
  fetch: functionSchema().optional(),
  onError: functionSchema().optional(),
});

/** Compares in constant time (over hashes, so the lengths leak nothing either). */
function sameSecret(offered: string | null, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered ?? ''), digest(expected)) && offered !== null;
}

/**
 * The bot's webhook, `POST /telegram/webhook` (the URL given to `setWebhook`
 * with `secret_token`). Checks `X-Telegram-Bot-Api-Secret-Token` in constant
 * time (401 problem otherwise), answers 200 at once and works in the
 * background (`waitUntil` when the platform gives one). An update is
 * handled once however often Telegram redelivers it (its `update_id` is
 * kept in `runtime.once`). Approve and approve-for-run clicks decide as
 * `telegram:<user id>`; Deny asks the clicker for a reason with a
 * force-reply prompt, and their reply (or `/skip`) decides. On a question,
 * an option's button answers with it, and Answer sends a force-reply prompt
 * whose reply is the answer (checked first: a refused one is told, and the
 * prompt takes another reply). The clicker is
 * answered and the card edited with the outcome, buttons removed.
 *
 * @example
 * import { createTelegramUpdates } from 'countersign/telegram';
 *
 * const updates = createTelegramUpdates({ runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, secretToken: process.env.TELEGRAM_WEBHOOK_SECRET! });
 * app.post(updates.path, (c) => updates.fetch(c.req.raw)); // Hono; or serve({ fetch: updates.fetch })
 */
export function createTelegramUpdates(options: TelegramUpdatesOptions): ChannelRoute {
  parseOptions(optionsSchema, options, 'createTelegramUpdates');
  const { runtime } = options;
  const botId = options.botToken.split(':')[0]!;
  const api = botApi({
    apiUrl: options.apiUrl ?? 'https://api.telegram.org',
    botToken: options.botToken,
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: 10_000,
  });
  const handling: UpdateHandling = {
    runtime,
    api,
    resumeMode: resumeModeOf(options.resumeMode, runtime, 'createTelegramUpdates'),
    resumeTimeoutMs: options.resumeTimeoutMs ?? 10_000,
    report(error, context) {
      try {
        options.onError?.(publicError(error, api.redact), context);
      } catch {
        // The reporter's own failure has nowhere left to go.
      }
    },
  };

  const handle = async (update: z.output<typeof updateSchema>) => {
    const query = update.callback_query;
    const reply = update.message?.reply_to_message === undefined ? undefined : update.message;
    // Other updates (messages, other bots' buttons) are left alone, without a store write.
    if (!isOurButton(query) && reply === undefined) return;
    // A value of its own, so a resend of this claim after a lost reply counts as this claim (OnceStore.putIfAbsent).
    if (
      (await runtime.once.putIfAbsent(`telegram:update:${botId}:${update.update_id}`, randomUUID(), UPDATE_KEPT_MS)) !==
      undefined
    )
      return;
    if (isOurButton(query)) await answerButton(handling, query);
    else if (reply !== undefined && !(await answerTyped(handling, reply))) await answerReason(handling, reply);
  };

  return {
    method: 'POST',
    path: '/telegram/webhook',
    async fetch(request, context) {
      if (!sameSecret(request.headers.get('x-telegram-bot-api-secret-token'), options.secretToken)) {
        return problemResponse(
          problem(
            401,
            'invalid_telegram_secret',
            "The X-Telegram-Bot-Api-Secret-Token header is missing or does not match the webhook's secret_token.",
          ),
        );
      }
      let update: z.output<typeof updateSchema>;
      try {
        update = parseJsonBody(updateSchema, await readRawBody(request, options.maxBodyBytes ?? 65_536));
      } catch (error) {
        const answer = problemFor(error);
        return problemResponse(answer.problem, answer.headers);
      }
      const work = handle(update).catch((error: unknown) => handling.report(error, { operation: 'update' }));
      context?.waitUntil?.(work);
      return new Response(null, { status: 200 });
    },
  };
}
