import type { Answer, LinkedRuntime, ResumeMode } from '../../index.js';
import { answerClick, type ClickReply } from '../../kit/index.js';
import type { BotApi } from './bot-api.js';
import { telegramMarkup } from './telegram-markup.js';

/**
 * What the Telegram webhook was doing when something failed, for `onError`.
 *
 * @example
 * createTelegramUpdates({ runtime, botToken, secretToken, onError: (error, { operation, runId }) => log.warn({ err: error, operation, runId }) });
 */
export interface TelegramUpdatesErrorContext {
  /** `click`: deciding failed unexpectedly; `resume`: a run that went on after the answer failed; `bot-api`: Telegram refused or could not be reached; `update`: an update could not be handled (e.g. the store is down). */
  readonly operation: 'click' | 'resume' | 'bot-api' | 'update';
  readonly runId?: string;
}

export interface UpdateHandling {
  readonly runtime: LinkedRuntime;
  readonly api: BotApi;
  readonly resumeMode: ResumeMode;
  readonly resumeTimeoutMs: number;
  /** Reports a failure, its text made public and the bot token removed. */
  readonly report: (error: unknown, context: TelegramUpdatesErrorContext) => void;
}

/**
 * Decides `token` for Telegram user `userId` (with the denier's `reason`, or a question's `answer`), in the words
 * every channel shares.
 */
export function decideFor(
  handling: UpdateHandling,
  token: string,
  userId: number,
  reason?: string,
  answer?: Answer,
): Promise<ClickReply> {
  return answerClick(handling.runtime, {
    ...(answer === undefined ? {} : { answer }),
    token,
    clicker: `telegram:${userId}`,
    channel: 'Telegram',
    markup: telegramMarkup,
    resumeMode: handling.resumeMode,
    resumeTimeoutMs: handling.resumeTimeoutMs,
    ...(reason === undefined ? {} : { reason }),
    onError: (error, context) => handling.report(error, context),
  });
}

/** Runs one Bot API call whose failure is reported, not thrown: the decision it follows stands either way. */
export async function tryBotApi(
  handling: UpdateHandling,
  method: string,
  body: Readonly<Record<string, unknown>>,
): Promise<unknown> {
  try {
    return await handling.api.call(method, body);
  } catch (error) {
    handling.report(error, { operation: 'bot-api' });
    return undefined;
  }
}
