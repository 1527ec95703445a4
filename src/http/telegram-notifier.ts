import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, isCountersignError } from '../errors.js';
import { functionSchema } from '../machine/function-schema.js';
import { publicError } from '../machine/public-text.js';
import { httpUrlSchema } from '../machine/url-schema.js';
import type { Notifier } from '../ports/notifier.js';
import type { RunEvent } from '../machine/run-events.js';
import type { ApprovalRequest } from '../machine/types.js';
import type { LinkedRuntime } from '../runtime/runtime.js';
import { botApi, escapeTelegram, fitTelegram, TELEGRAM_CALLBACK_PREFIX, TELEGRAM_TEXT_LIMIT, TelegramApiError, telegramKey } from './telegram-api.js';
import { parseOptions, optionsObject } from '../options.js';

/**
 * What the Telegram notifier was doing when something failed, for `onError`.
 *
 * @example
 * createTelegramNotifier({ runtime, botToken, chatId, onError: (error, { operation, runId }) => log.warn({ err: error, operation, runId }, 'telegram') });
 */
export interface TelegramNotifierErrorContext {
  /** `links` (no token could be minted or kept, e.g. a runtime without `links`), `post` (Telegram refused or could not be reached after the last try). */
  readonly operation: 'links' | 'post';
  readonly runId: string;
  readonly approvalId?: string;
}

/**
 * Options of `createTelegramNotifier`: a runtime made with `links`, a bot token and the chat to post to.
 *
 * @example
 * const options: TelegramNotifierOptions = { runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, chatId: -1001234567890, linkTtlMs: 3_600_000 };
 */
export interface TelegramNotifierOptions {
  /** Mints the buttons' one-click tokens; must be made with `createRuntime({ links: { secret, baseUrl } })`. */
  readonly runtime: LinkedRuntime;
  /** The bot's token from BotFather (`123456:ABC...`); a secret, never logged. */
  readonly botToken: string;
  /** The chat (group, channel or user id, or `@channelusername`) the bot posts to. */
  readonly chatId: string | number;
  /** The Bot API base. Default `https://api.telegram.org`. */
  readonly apiUrl?: string;
  /** How long the buttons work (never past the approval's own expiry). Default: the runtime's `links.expiresInMs` (24 h). */
  readonly linkTtlMs?: number;
  /** Tries per message, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Wait before the second try, doubled for each next one; a 429's `retry_after` is honoured up to 30 s. Default 1000 ms. */
  readonly backoffMs?: number;
  /** One try is abandoned after this long. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Waits between tries; inject one that returns at once in tests. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Failures, which never reach the run; their messages never hold the bot token or a URL (only its host). */
  readonly onError?: (error: unknown, context: TelegramNotifierErrorContext) => void;
}

/**
 * A `Notifier` that asks a Telegram chat to decide approvals.
 *
 * @example
 * const telegram: TelegramNotifier = createTelegramNotifier({ runtime, botToken, chatId });
 * runtime.subscribe((event) => void telegram.publish([event]));
 * await telegram.flush(); // before the process exits
 */
export interface TelegramNotifier extends Notifier {
  /** Queues the messages for these events and returns at once. */
  publish(events: readonly RunEvent[]): Promise<void>;
  /** Resolves once every queued message was posted or given up on. */
  flush(): Promise<void>;
}

/** A bot token as BotFather issues it. */
export const TELEGRAM_BOT_TOKEN_PATTERN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

const optionsSchema = optionsObject(
  {
    runtime: z.custom<LinkedRuntime>((value) => typeof (value as LinkedRuntime | undefined)?.linkTokens === 'function', 'must be a runtime made with createRuntime({ agents, links })'),
    botToken: z.string().regex(TELEGRAM_BOT_TOKEN_PATTERN, 'must be a bot token from BotFather (123456:ABC...)'),
    chatId: z.union([z.number().int().safe(), z.string().regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/, 'must be a chat id or @channelusername')]),
    apiUrl: httpUrlSchema({ example: 'https://api.telegram.org', credential: 'botToken' }).optional(),
    linkTtlMs: z.number().int().positive().optional(),
    maxAttempts: z.number().int().min(1).max(10).optional(),
    backoffMs: z.number().int().min(0).max(60_000).optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    fetch: functionSchema().optional(),
    sleep: functionSchema().optional(),
    onError: functionSchema().optional(),
  },
);

function argsJson(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    return String(args);
  }
}

/**
 * The HTML text of the message that asks a chat to decide one approval: tool,
 * agent, description, the redacted display arguments in `<pre>`, warnings and
 * expiry. Everything from the request is escaped, and the whole fits
 * Telegram's 4096 characters (a long part is cut visibly, never inside an entity).
 *
 * @example
 * const text = telegramApprovalText({ runId, agentName: 'files', request, expiresAt });
 * await api.call('sendMessage', { chat_id, text, parse_mode: 'HTML' });
 */
export function telegramApprovalText(input: { readonly runId: string; readonly agentName: string; readonly request: ApprovalRequest; readonly expiresAt: number }): string {
  const { runId, agentName, request, expiresAt } = input;
  const head = fitTelegram(
    `${escapeTelegram(request.toolName)} wants to run for agent ${escapeTelegram(agentName)}.\n${escapeTelegram(request.description)}` +
      (request.reason ? `\nWhy a person decides: ${escapeTelegram(request.reason)}` : '') +
      (request.outcomeUnknown ? '\n❔ This call was interrupted before; it may or may not have had its effect.' : ''),
    1200,
  );
  const warnings =
    request.warnings.length === 0
      ? ''
      : fitTelegram(`⚠️ Check the arguments carefully:\n${request.warnings.map((warning) => `• ${escapeTelegram(warning.path || '(arguments)')}: ${escapeTelegram(warning.message)}`).join('\n')}`, 800);
  const foot = fitTelegram(`Run ${escapeTelegram(runId)} · approval ${escapeTelegram(request.approvalId)} · buttons work once, until ${new Date(expiresAt).toISOString()}`, 500);
  // Plain text above is wrapped in fixed tags below, so a cut never leaves a tag open.
  const parts = [`<b>Approval needed</b>`, head, '', warnings, `<i>${foot}</i>`];
  const fixed = parts.join('\n').length + '<pre></pre>\n'.length + 8;
  const args = `<pre>${fitTelegram(escapeTelegram(argsJson(request.args)), TELEGRAM_TEXT_LIMIT - fixed)}</pre>`;
  parts[2] = args;
  return parts.filter((part) => part !== '').join('\n');
}

/**
 * A notifier that posts each `approval-requested` event to a Telegram chat
 * through the Bot API's `sendMessage`, with Approve and Deny inline buttons.
 * Telegram's `callback_data` holds at most 64 bytes, so each button carries
 * `cs:` and a random short id; the single-use link token it stands for
 * (`runtime.approvalLinks`) is kept in the runtime's store under
 * `telegram:<id>` until the link expires. Mount
 * `createApprovalApp(runtime, { telegram: { secretToken, botToken } })` as the
 * bot's webhook to receive the clicks. The arguments shown are the request's
 * redacted display copy, and everything from the model is HTML-escaped.
 *
 * Without `links` on the runtime the first approval is not posted and a
 * `ConfigError` goes to `onError`. Failures are retried a few times and then
 * go to `onError` (with the bot token redacted); they never reach the run.
 *
 * @example
 * import { createRuntime } from 'countersign';
 * import { createTelegramNotifier } from 'countersign/http';
 *
 * const runtime = createRuntime({ agents: [agent], store, links: { secret: process.env.LINK_SECRET!, baseUrl: 'https://approvals.example.com' } });
 * const telegram = createTelegramNotifier({ runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, chatId: -1001234567890, onError: (error) => log.warn(error) });
 * runtime.subscribe((event) => void telegram.publish([event]));
 */
export function createTelegramNotifier(options: TelegramNotifierOptions): TelegramNotifier {
  parseOptions(optionsSchema, options, 'createTelegramNotifier');
  const { runtime } = options;
  const maxAttempts = options.maxAttempts ?? 3;
  const backoffMs = options.backoffMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const api = botApi({ apiUrl: options.apiUrl ?? 'https://api.telegram.org', botToken: options.botToken, fetch: options.fetch ?? globalThis.fetch });
  const inflight = new Set<Promise<void>>();
  const tails = new Map<string, Promise<void>>();

  const report = (error: unknown, context: TelegramNotifierErrorContext) => {
    try {
      // An error from elsewhere (fetch, the store) could still quote the URL: never hand the token on.
      options.onError?.(publicError(error, api.redact), context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };

  const post = async (body: Record<string, unknown>): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        await api.call('sendMessage', body, timeoutMs);
        return;
      } catch (error) {
        if (!(error instanceof TelegramApiError) || !error.retry || tries >= maxAttempts) throw error;
        await sleep(error.waitMs ?? backoffMs * 2 ** (tries - 1));
      }
    }
  };

  const ask = async (event: Extract<RunEvent, { type: 'approval-requested' }>) => {
    const { runId, request } = event;
    const context = { runId, approvalId: request.approvalId };
    let links: Awaited<ReturnType<LinkedRuntime['linkTokens']>>;
    try {
      links = await runtime.linkTokens(runId, request.approvalId, options.linkTtlMs === undefined ? {} : { expiresIn: options.linkTtlMs });
    } catch (error) {
      // Decided (or gone) before its turn came: there is nothing left to ask.
      if (isCountersignError(error) && (error.code === 'unknown_approval' || error.code === 'run_not_found')) return;
      const refusal =
        error instanceof ConfigError && /links/.test(error.message)
          ? new ConfigError('createTelegramNotifier: the runtime has no one-click links, so the buttons would carry nothing; create it with createRuntime({ links: { secret, baseUrl } }).')
          : error;
      report(refusal, { operation: 'links', ...context });
      return;
    }
    const token = (value: string) => value;
    // Kept a little past the link's expiry is pointless: the token would be refused anyway.
    const ttl = Math.max(1000, links.expiresAt - Date.now());
    const ids = { approve: randomBytes(16).toString('base64url'), deny: randomBytes(16).toString('base64url') };
    try {
      await runtime.once.putIfAbsent(telegramKey(ids.approve), token(links.approve), ttl);
      await runtime.once.putIfAbsent(telegramKey(ids.deny), token(links.deny), ttl);
    } catch (error) {
      report(error, { operation: 'links', ...context });
      return;
    }
    const text = telegramApprovalText({ runId, agentName: event.agentName, request, expiresAt: links.expiresAt });
    try {
      await post({
        chat_id: options.chatId,
        text,
        parse_mode: 'HTML',
        reply_markup: {
          inline_keyboard: [
            [
              { text: '✅ Approve', callback_data: `${TELEGRAM_CALLBACK_PREFIX}${ids.approve}` },
              { text: '❌ Deny', callback_data: `${TELEGRAM_CALLBACK_PREFIX}${ids.deny}` },
            ],
          ],
        },
        link_preview_options: { is_disabled: true },
      });
    } catch (error) {
      report(error, { operation: 'post', ...context });
    }
  };

  const enqueue = (runId: string, work: () => Promise<void>) => {
    const task = (tails.get(runId) ?? Promise.resolve()).then(work).catch(() => {});
    tails.set(runId, task);
    inflight.add(task);
    void task.then(() => {
      inflight.delete(task);
      if (tails.get(runId) === task) tails.delete(runId);
    });
  };

  return {
    async publish(events) {
      for (const event of events) {
        if (event.type === 'approval-requested') enqueue(event.runId, () => ask(event));
      }
    },
    async flush() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
