// A force-reply prompt to the person who pressed a button (why they deny, or their typed answer): sent in the card's
// chat and thread, only to them, and kept in the once store until the request expires, so their reply (in any
// process) finds what it answers.
import { sentMessage } from './bot-api.js';
import type { TelegramCardRef } from './posted-cards.js';
import type { CallbackQuery, TelegramMessage } from './update-schema.js';
import { tryBotApi, type UpdateHandling } from './update-handling.js';

/** What a prompt holds until it is answered: the token the reply decides with, who may reply, the card to update. */
export interface HeldPrompt {
  readonly token: string;
  readonly userId: number;
  readonly card: TelegramCardRef;
}

/** Where a prompt is kept: by the kind of reply it takes, its chat and its message. */
export const promptKey = (kind: 'reason' | 'answer', chatId: number | string, promptId: number) =>
  `telegram:${kind}:${chatId}:${promptId}`;

/**
 * Tells the clicker of `query` `note`, sends them `text` with a reply field (`placeholder`), and keeps the prompt
 * for `token` until `expiresAt`.
 */
export async function sendReplyPrompt(
  handling: UpdateHandling,
  query: CallbackQuery & { message: TelegramMessage },
  prompt: {
    kind: 'reason' | 'answer';
    token: string;
    expiresAt: number;
    note: string;
    text: string;
    placeholder: string;
  },
): Promise<void> {
  const { message, from } = query;
  await tryBotApi(handling, 'answerCallbackQuery', { callback_query_id: query.id, text: prompt.note });
  const sent = await handling.api.call('sendMessage', {
    chat_id: message.chat.id,
    ...(message.is_topic_message === true && message.message_thread_id !== undefined
      ? { message_thread_id: message.message_thread_id }
      : {}),
    text: `<a href="tg://user?id=${from.id}">Telegram user ${from.id}</a>, ${prompt.text}`,
    parse_mode: 'HTML',
    reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
    // selective: only the mentioned clicker gets the reply field.
    reply_markup: { force_reply: true, selective: true, input_field_placeholder: prompt.placeholder.slice(0, 64) },
  });
  const posted = sentMessage(sent);
  const held: HeldPrompt = {
    token: prompt.token,
    userId: from.id,
    card: { chatId: message.chat.id, messageId: message.message_id },
  };
  await handling.runtime.once.putIfAbsent(
    promptKey(prompt.kind, posted.chatId, posted.messageId),
    JSON.stringify(held),
    Math.max(1000, prompt.expiresAt - Date.now()),
  );
}

/**
 * The prompt of `kind` that `message` replies to, with its key and stored value (to let it go once answered), when
 * its sender is the person it asked; undefined when it replies to no such prompt, `'other'` when someone else replied.
 */
export async function promptRepliedTo(
  handling: UpdateHandling,
  message: TelegramMessage,
  kind: 'reason' | 'answer',
): Promise<{ prompt: HeldPrompt; key: string; held: string; text: string; userId: number } | 'other' | undefined> {
  const promptId = message.reply_to_message?.message_id;
  if (promptId === undefined || message.text === undefined || message.from === undefined) return undefined;
  const key = promptKey(kind, message.chat.id, promptId);
  const held = await handling.runtime.once.get(key);
  if (held === undefined) return undefined;
  const prompt = JSON.parse(held) as HeldPrompt;
  if (prompt.userId !== message.from.id) return 'other';
  return { prompt, key, held, text: message.text, userId: message.from.id };
}
