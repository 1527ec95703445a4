import { z } from 'zod';
import { storeButtonIds } from '../button-ids.js';
import {
  createChannelNotifier,
  type ApprovalCard,
  type ChannelDriver,
  type ChannelNotifier,
} from '../channel-notifier.js';
import { channelOptionsShape, channelSettings, type ChannelOptions } from '../channel-options.js';
import { outcomeLine, decisionButtons, httpUrlSchema, optionsObject, parseOptions } from '../../kit/index.js';
import { approvalLinkUrl } from '../../index.js';
import { cardKeyboard, cardText } from './approval-card.js';
import { questionKeyboard } from './question-card.js';
import { botApi, sentMessage, TELEGRAM_BOT_TOKEN_PATTERN } from './bot-api.js';
import { keepCardText, showOnCard, type TelegramCardRef } from './posted-cards.js';
import { telegramMarkup } from './telegram-markup.js';

/**
 * Options of `createTelegramNotifier`: the options every channel takes, the
 * bot's token and the chat that gets approvals of runs not started from Telegram.
 *
 * @example
 * const options: TelegramNotifierOptions = { runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, chatId: -1001234567890 };
 */
export interface TelegramNotifierOptions extends ChannelOptions {
  /** The bot's token from BotFather (`123456:ABC...`); a secret, never in an error. */
  readonly botToken: string;
  /** The chat (a group, channel or user id, or `@channelusername`) for runs whose origin is not a Telegram chat. */
  readonly chatId: string | number;
  /** The Bot API base. Default `https://api.telegram.org`. */
  readonly apiUrl?: string;
  /**
   * The public URL of the approval app (`createApprovalApp`): a question Telegram cannot ask in place (several
   * fields, several choices, a yes/no) links to its page there. Without it, such a card says to answer in the console.
   */
  readonly baseUrl?: string;
}

/** Telegram's chat ids: a number, or `@channelusername`. */
export const chatIdSchema = z.union([
  z.number().int().safe(),
  z.string().regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/, 'must be a chat id or @channelusername'),
]);
export const botTokenSchema = z
  .string()
  .regex(TELEGRAM_BOT_TOKEN_PATTERN, 'must be a bot token from BotFather (123456:ABC...)');
export const apiUrlSchema = httpUrlSchema({ example: 'https://api.telegram.org', credential: 'botToken' });

const optionsSchema = optionsObject({
  ...channelOptionsShape,
  botToken: botTokenSchema,
  chatId: chatIdSchema,
  apiUrl: apiUrlSchema.optional(),
  baseUrl: httpUrlSchema({
    example: 'https://approvals.example.com',
    credential: 'no option (a link page needs none: its token is in the path)',
  }).optional(),
});

/** Where a card goes: the Telegram chat (and forum topic) its run came from, else the default chat. */
function destination(card: ApprovalCard, chatId: string | number): Record<string, unknown> {
  const { origin } = card;
  if (origin?.channel !== 'telegram') return { chat_id: chatId };
  const topic =
    origin.thread !== undefined && /^\d{1,20}$/.test(origin.thread) ? { message_thread_id: Number(origin.thread) } : {};
  return { chat_id: origin.address, ...topic };
}

/**
 * A notifier that asks a Telegram chat to decide each approval: an HTML
 * message with the tool, agent, connector, reason, warnings and the
 * redacted arguments (all escaped, within 4096 characters), and the buttons
 * ✅ Approve, ✅ Approve for this run (or session) and ❌ Deny (which asks for a reason).
 * A run started with `origin: { channel: 'telegram', address: chatId, thread? }`
 * is asked in that chat (and forum topic); any other in `chatId`. The
 * message is edited, buttons removed, when the approval is decided
 * elsewhere or expires and when the approved call finishes. Clicks come
 * back through `createTelegramUpdates`.
 *
 * @example
 * import { createTelegramNotifier } from 'countersign/telegram';
 *
 * const telegram = createTelegramNotifier({ runtime, botToken: process.env.TELEGRAM_BOT_TOKEN!, chatId: -1001234567890, onError: (error, context) => log.warn({ err: error, ...context }) });
 * runtime.subscribe((event) => void telegram.publish([event]));
 * await runtime.start('ops', { input: text, origin: { channel: 'telegram', address: String(message.chat.id) } });
 */
export function createTelegramNotifier(options: TelegramNotifierOptions): ChannelNotifier {
  parseOptions(optionsSchema, options, 'createTelegramNotifier');
  const settings = channelSettings(options);
  const { once } = settings.runtime;
  const api = botApi({
    apiUrl: options.apiUrl ?? 'https://api.telegram.org',
    botToken: options.botToken,
    fetch: settings.fetch,
    timeoutMs: settings.timeoutMs,
  });

  const driver: ChannelDriver<TelegramCardRef> = {
    name: 'telegram',
    redact: api.redact,
    async post(card) {
      const now = settings.clock();
      const ids = await storeButtonIds(once, 'telegram', card.tokens, now);
      const { question } = card.request;
      const page =
        options.baseUrl === undefined || card.tokens.approve === undefined
          ? undefined
          : approvalLinkUrl(options.baseUrl, card.tokens.approve);
      const text = cardText(card, page);
      const buttons = decisionButtons(card.request, card.tokens);
      const keyboard =
        question === undefined ? cardKeyboard(ids, buttons) : questionKeyboard(ids, buttons, question, page);
      const sent = sentMessage(
        await api.call('sendMessage', {
          ...destination(card, options.chatId),
          text,
          parse_mode: 'HTML',
          ...(keyboard.inline_keyboard.length === 0 ? {} : { reply_markup: keyboard }),
          link_preview_options: { is_disabled: true },
        }),
      );
      await keepCardText(once, sent, text, card.tokens.expiresAt - now);
      return sent;
    },
    async update({ ref, outcome }) {
      if (ref !== undefined) await showOnCard(api, once, ref, outcomeLine(outcome, telegramMarkup));
    },
  };
  return createChannelNotifier(driver, settings);
}
