import type { OnceStore } from '../../index.js';
import { withLine } from './approval-card.js';
import type { BotApi } from './bot-api.js';

/** Where a card was posted: what `createTelegramNotifier` remembers to edit it. */
export interface TelegramCardRef {
  readonly chatId: number | string;
  readonly messageId: number;
}

/** A card's text is kept this long past its buttons' expiry, so the call's end can still be shown on it. */
const KEPT_AFTER_EXPIRY_MS = 7 * 86_400_000;

/** Tries to add a line against concurrent edits before writing it without the others. */
const MAX_TRIES = 5;

const keyOf = (ref: TelegramCardRef) => `telegram:card-text:${ref.chatId}:${ref.messageId}`;

export async function keepCardText(
  once: OnceStore,
  ref: TelegramCardRef,
  html: string,
  buttonsMs: number,
): Promise<void> {
  await once.putIfAbsent(keyOf(ref), html, Math.max(0, buttonsMs) + KEPT_AFTER_EXPIRY_MS);
}

/** The kept text with `line` added (kept again), or just `line` when the card's text is not known here. */
async function addLine(once: OnceStore, ref: TelegramCardRef, line: string): Promise<string> {
  for (let tries = 1; ; tries++) {
    const card = await once.get(keyOf(ref));
    if (card === undefined) return line;
    const next = withLine(card, line);
    if (tries >= MAX_TRIES || (await once.replace(keyOf(ref), card, next, KEPT_AFTER_EXPIRY_MS))) return next;
  }
}

/** Edits the card at `ref` to show `line` below it and every earlier one, buttons removed (no `reply_markup`). */
export async function showOnCard(api: BotApi, once: OnceStore, ref: TelegramCardRef, line: string): Promise<void> {
  await api.call('editMessageText', {
    chat_id: ref.chatId,
    message_id: ref.messageId,
    text: await addLine(once, ref, line),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  });
}
