import type { ApprovalRequest } from '../../index.js';
import { escapeMarkup } from '../../kit/index.js';
import { sentMessage } from './bot-api.js';
import { showOnCard, type TelegramCardRef } from './posted-cards.js';
import type { CallbackQuery, TelegramMessage } from './update-schema.js';
import { decideFor, tryBotApi, type UpdateHandling } from './update-handling.js';

/** The longest reason kept (the runtime takes 2,000 characters); a longer reply is cut. */
const MAX_REASON = 2000;

interface Pending {
  readonly token: string;
  readonly userId: number;
  readonly card: TelegramCardRef;
}

const keyOf = (chatId: number | string, promptId: number) => `telegram:reason:${chatId}:${promptId}`;

/** Asks the clicker of Deny on the card of `query` why, for the pending `request` that `token` denies until `expiresAt`. */
export async function askReason(
  handling: UpdateHandling,
  query: CallbackQuery & { message: TelegramMessage },
  token: string,
  request: ApprovalRequest,
  expiresAt: number,
): Promise<void> {
  const { message, from } = query;
  await tryBotApi(handling, 'answerCallbackQuery', {
    callback_query_id: query.id,
    text: 'Reply to the message below with a reason, or send /skip.',
  });
  const asker = `<a href="tg://user?id=${from.id}">Telegram user ${from.id}</a>`;
  const sent = await handling.api.call('sendMessage', {
    chat_id: message.chat.id,
    ...(message.is_topic_message === true && message.message_thread_id !== undefined
      ? { message_thread_id: message.message_thread_id }
      : {}),
    text: `${asker}, why deny <b>${escapeMarkup(request.toolName)}</b>? Reply with a reason, or send /skip.`,
    parse_mode: 'HTML',
    reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
    // selective: only the mentioned clicker gets the reply field.
    reply_markup: { force_reply: true, selective: true, input_field_placeholder: 'Why deny? Or /skip' },
  });
  const prompt = sentMessage(sent);
  const pending: Pending = { token, userId: from.id, card: { chatId: message.chat.id, messageId: message.message_id } };
  await handling.runtime.once.putIfAbsent(
    keyOf(prompt.chatId, prompt.messageId),
    JSON.stringify(pending),
    Math.max(1000, expiresAt - Date.now()),
  );
}

/** Decides a deny whose prompt `message` replies to, when its sender pressed Deny; anything else is left alone. */
export async function answerReason(handling: UpdateHandling, message: TelegramMessage): Promise<void> {
  const promptId = message.reply_to_message?.message_id;
  if (promptId === undefined || message.text === undefined || message.from === undefined) return;
  const { once } = handling.runtime;
  const key = keyOf(message.chat.id, promptId);
  const held = await once.get(key);
  if (held === undefined) return;
  const pending = JSON.parse(held) as Pending;
  if (pending.userId !== message.from.id) return;
  // One reply decides: a second one (or a redelivery elsewhere) finds the prompt gone.
  if (!(await once.replace(key, held, undefined, 1000))) return;
  const text = message.text.trim();
  const reason = /^\/skip(@\w+)?$/i.test(text) || text === '' ? undefined : text.slice(0, MAX_REASON);
  const reply = await decideFor(handling, pending.token, message.from.id, reason);
  if (reply.replace) {
    await showOnCard(handling.api, once, pending.card, reply.text).catch((error: unknown) =>
      handling.report(error, { operation: 'bot-api' }),
    );
    return;
  }
  await tryBotApi(handling, 'sendMessage', {
    chat_id: message.chat.id,
    text: reply.text,
    parse_mode: 'HTML',
    reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
  });
}
