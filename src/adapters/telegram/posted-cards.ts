// A posted card's text, kept in the OnceStore under its chat and message, and the one way a card is edited: whoever
// edits it later (the notifier when the approval ends, the webhook after a click, in any process) writes the same
// card with one more line instead of replacing it.
import type { OnceStore } from '../../ports/once-store.js';
import { withLine } from './approval-card.js';
import type { BotApi } from './bot-api.js';

/** Where a card was posted: what `createTelegramNotifier` remembers to edit it. */
export interface TelegramCardRef {
  readonly chatId: number | string;
  readonly messageId: number;
}

/** A card's text is kept this long past its buttons' expiry, so the call's end can still be shown on it. */
const KEPT_AFTER_EXPIRY_MS = 7 * 86_400_000;

const keyOf = (ref: TelegramCardRef) => `telegram:card-text:${ref.chatId}:${ref.messageId}`;

export async function keepCardText(once: OnceStore, ref: TelegramCardRef, html: string, buttonsMs: number): Promise<void> {
  await once.putIfAbsent(keyOf(ref), html, Math.max(0, buttonsMs) + KEPT_AFTER_EXPIRY_MS);
}

/**
 * Edits the card at `ref` to its text with `line` below, buttons removed (no `reply_markup`); just `line` when its
 * text is not known here (posted by something else, or long gone).
 */
export async function showOnCard(api: BotApi, once: OnceStore, ref: TelegramCardRef, line: string): Promise<void> {
  const card = await once.get(keyOf(ref));
  await api.call('editMessageText', {
    chat_id: ref.chatId,
    message_id: ref.messageId,
    text: card === undefined ? line : withLine(card, line),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  });
}
