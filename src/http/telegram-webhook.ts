import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { z } from 'zod';
import { isCountersignError } from '../errors.js';
import { publicError } from '../machine/public-text.js';
import type { LinkedRuntime, LinkRespondResult } from '../runtime/runtime.js';
import type { AppEnv } from './app-env.js';
import { classifyRefusal, linkRun } from '../channels/refusal.js';
import { decideWithLink } from '../channels/decide-click.js';
import { HttpProblem, problem } from '../web/problem.js';
import { parseJsonBody, readRawBody } from '../web/read-body.js';
import { botApi, escapeTelegram, fitTelegram, TELEGRAM_CALLBACK_PREFIX, TELEGRAM_TEXT_LIMIT, telegramKey, telegramWho } from './telegram-api.js';

/**
 * The `telegram` option of `createApprovalApp`: what `POST /telegram/webhook`
 * needs to take button clicks from a Telegram bot.
 *
 * @example
 * createApprovalApp(runtime, { bearerToken, telegram: { secretToken: process.env.TELEGRAM_WEBHOOK_SECRET!, botToken: process.env.TELEGRAM_BOT_TOKEN! } });
 */
export interface TelegramWebhookOptions {
  /** The `secret_token` given to `setWebhook` (1–256 of `A-Za-z0-9_-`); Telegram sends it as `X-Telegram-Bot-Api-Secret-Token`. */
  readonly secretToken: string;
  /** The bot's token, to answer the click and edit the message; a secret, never logged. */
  readonly botToken: string;
  /** The Bot API base. Default `https://api.telegram.org`. */
  readonly apiUrl?: string;
  /** Used to call the Bot API. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
}

/** What the app hands the route besides the user's options. */
export interface TelegramWebhookSettings extends TelegramWebhookOptions {
  readonly maxBodyBytes: number;
  readonly resumeMode: 'inline' | 'enqueue';
  readonly resumeTimeoutMs: number;
  readonly onError: (error: unknown, context: { readonly operation: string; readonly runId?: string }) => void;
}

/** Telegram's rule for a webhook's secret_token. */
export const TELEGRAM_SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

const updateSchema = z.looseObject({
  update_id: z.number().int(),
  callback_query: z
    .looseObject({
      id: z.string().min(1).max(256),
      from: z.looseObject({ id: z.number().int().safe() }),
      data: z.string().max(256).optional(),
      inline_message_id: z.string().max(256).optional(),
      message: z.looseObject({ message_id: z.number().int(), chat: z.looseObject({ id: z.number().int().safe() }) }).optional(),
    })
    .optional(),
});

/** What Telegram is told once the decision settles: a toast, and either the message's new text or an alert that leaves the buttons. */
interface Reply {
  readonly toast: string;
  /** Replaces the message (buttons removed); absent: the approval stays open and the toast is an alert. */
  readonly edit?: string;
}

/** Compares in constant time (over hashes, so the lengths leak nothing either). */
function sameSecret(offered: string | undefined, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered ?? ''), digest(expected)) && offered !== undefined;
}

/**
 * The route behind `POST /telegram/webhook`: takes a bot's webhook Update,
 * checks `X-Telegram-Bot-Api-Secret-Token` against `secretToken` in constant
 * time (401 otherwise) and answers 200 at once (Telegram retries anything
 * else). A `callback_query` whose data is `cs:<id>` is looked up in the store
 * (`telegram:<id>`, kept by `createTelegramNotifier`) and its one-click link
 * token spent with `runtime.respondWithLink` as `telegram:<user id>`. In the
 * background the click is answered (`answerCallbackQuery`) and the message
 * replaced with the outcome, buttons removed (`editMessageText`); a refusal
 * that leaves the approval open only shows the clicker an alert. Other
 * updates are acknowledged and left alone.
 *
 * @example
 * const app = new Hono<AppEnv>();
 * app.post('/telegram/webhook', telegramWebhook(runtime, { secretToken, botToken, maxBodyBytes: 65_536, resumeMode: 'inline', resumeTimeoutMs: 10_000, onError: report }));
 */
export function telegramWebhook(runtime: LinkedRuntime, settings: TelegramWebhookSettings) {
  const api = botApi({ apiUrl: settings.apiUrl ?? 'https://api.telegram.org', botToken: settings.botToken, fetch: settings.fetch ?? globalThis.fetch });
  const report = (error: unknown, operation: string, runId?: string) => {
    try {
      settings.onError(publicError(error, api.redact), runId === undefined ? { operation } : { operation, runId });
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };
  /** Reports a failure about the click on `token`, naming its run when the runtime can tell (only it can open a token). */
  const reportClick = (error: unknown, operation: string, token: string | undefined) =>
    token === undefined ? report(error, operation) : void linkRun(runtime, token).then(({ runId }) => report(error, operation, runId));

  const outcomeReply = (result: LinkRespondResult, user: string): Reply => {
    const entry = result.snapshot.audit.find((item) => item.approvalId === result.approvalId);
    const tool = entry ? ` ${escapeTelegram(entry.toolName)},` : '';
    if (result.duplicate) {
      const text = `Already ${entry?.decision ?? 'decided'} by ${telegramWho(entry?.by)}:${tool} run is ${result.status}.`;
      return { toast: 'Already decided; nothing was done again.', edit: text };
    }
    const verb = entry?.decision === 'denied' ? 'Denied' : 'Approved';
    return { toast: `${verb}.`, edit: `${verb} by ${entry ? telegramWho(entry.by) : telegramWho(`telegram:${user}`)}:${tool} run is ${result.status}.` };
  };

  const refusalReply = async (error: unknown, token: string, user: string): Promise<Reply> => {
    const refusal = await classifyRefusal(runtime, error);
    switch (refusal.kind) {
      case 'used': {
        const who = refusal.entry ? `${refusal.entry.decision} by ${telegramWho(refusal.entry.by)}` : 'decided';
        return { toast: 'Already used; nothing was done again.', edit: `Already ${who}; this button was used before, so nothing was done again.` };
      }
      case 'expired':
        return { toast: 'These buttons have expired.', edit: 'These buttons have expired; nothing was done. Ask the agent again.' };
      case 'invalid':
        return { toast: 'This button is not valid; nothing was done.' };
      case 'conflict':
        return { toast: 'Already decided.', edit: `Already ${refusal.winner?.decision ?? 'decided'} by ${telegramWho(refusal.winner?.by)}; a later click changed nothing.` };
      case 'approval_expired':
        return { toast: 'This approval expired.', edit: 'This approval expired before the click; nothing was done.' };
      case 'gone':
        return { toast: 'No longer pending.', edit: 'This approval is no longer pending; nothing was done.' };
      case 'not_allowed':
        return { toast: `You (Telegram user ${user}) may not decide this approval; nothing was done. Ask one of its approvers.` };
      case 'store':
        return { toast: 'Your decision could not be recorded just now; click again in a moment.' };
      case 'unexpected':
        reportClick(error, 'telegram-action', token);
        return { toast: refusal.config ? 'Approvals from Telegram are not set up on this server; nothing was done.' : 'Something went wrong; your decision may not be recorded. Try again.' };
    }
  };

  type Query = NonNullable<z.output<typeof updateSchema>['callback_query']>;

  const tell = async (query: Query, reply: Reply, token: string | undefined) => {
    try {
      // Telegram caps a callback answer's text at 200 characters.
      await api.call('answerCallbackQuery', { callback_query_id: query.id, text: reply.toast.slice(0, 200), ...(reply.edit === undefined ? { show_alert: true } : {}) });
    } catch (error) {
      reportClick(error, 'telegram-answer', token);
    }
    if (reply.edit === undefined) return;
    const where = query.message ? { chat_id: query.message.chat.id, message_id: query.message.message_id } : query.inline_message_id ? { inline_message_id: query.inline_message_id } : undefined;
    if (!where) return;
    try {
      // No reply_markup: the keyboard goes with the old text.
      await api.call('editMessageText', { ...where, text: fitTelegram(reply.edit, TELEGRAM_TEXT_LIMIT), parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    } catch (error) {
      reportClick(error, 'telegram-edit', token);
    }
  };

  const decide = async (query: Query, id: string) => {
    const user = String(query.from.id);
    let held: string | undefined;
    try {
      held = await runtime.once.get(telegramKey(id));
    } catch (error) {
      const code = isCountersignError(error) ? error.code : undefined;
      if (code !== 'store_unavailable') report(error, 'telegram-action');
      return tell(query, { toast: 'Your decision could not be recorded just now; click again in a moment.' }, undefined);
    }
    if (held === undefined || held === '') {
      return tell(query, { toast: 'This button is no longer valid (unknown or expired); nothing was done.' }, undefined);
    }
    const token = held;
    let reply: Reply;
    try {
      const { result, carryingOn } = await decideWithLink(runtime, token, {
        resumeMode: settings.resumeMode,
        resumeTimeoutMs: settings.resumeTimeoutMs,
        approvedBy: `telegram:${user}`,
        onLateError: (error, runId) => report(error, 'resume', runId),
      });
      if (carryingOn) {
        reply = { toast: 'Decision recorded.', edit: `Decision by ${telegramWho(`telegram:${user}`)} recorded; the run is carrying on.` };
      } else {
        reply = outcomeReply(result, user);
      }
    } catch (error) {
      reply = await refusalReply(error, token, user);
    }
    await tell(query, reply, token);
  };

  return async function telegramWebhookHandler(c: Context<AppEnv>): Promise<Response> {
    if (!sameSecret(c.req.header('x-telegram-bot-api-secret-token'), settings.secretToken)) {
      throw new HttpProblem(problem(401, 'invalid_telegram_secret', 'The X-Telegram-Bot-Api-Secret-Token header is missing or does not match the webhook\'s secret_token.'));
    }
    const raw = await readRawBody(c.req.raw, settings.maxBodyBytes);
    const update = parseJsonBody(updateSchema, raw);
    const query = update.callback_query;
    const data = query?.data;
    // Other updates (messages, other bots' buttons) are acknowledged and left alone.
    if (!query || data === undefined || !data.startsWith(TELEGRAM_CALLBACK_PREFIX)) return c.body(null, 200);
    const id = data.slice(TELEGRAM_CALLBACK_PREFIX.length);
    const task = (/^[A-Za-z0-9_-]{1,64}$/.test(id) ? decide(query, id) : tell(query, { toast: 'This button is not valid; nothing was done.' }, undefined)).catch((error: unknown) =>
      report(error, 'telegram-action'),
    );
    try {
      // Serverless platforms with an execution context keep the function alive for the background work.
      c.executionCtx.waitUntil(task);
    } catch {
      // Node has no execution context: the process stays up anyway.
    }
    return c.body(null, 200);
  };
}
