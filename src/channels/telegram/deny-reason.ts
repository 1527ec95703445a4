import type { ApprovalRequest } from '../../index.js';
import { escapeMarkup } from '../../kit/index.js';
import { showOnCard } from './posted-cards.js';
import { promptRepliedTo, sendReplyPrompt } from './reply-prompt.js';
import type { CallbackQuery, TelegramMessage } from './update-schema.js';
import { decideFor, tryBotApi, type UpdateHandling } from './update-handling.js';

/** The longest reason kept (the runtime takes 2,000 characters); a longer reply is cut. */
const MAX_REASON = 2000;

/** Asks the clicker of Deny on the card of `query` why, for the pending `request` that `token` denies until `expiresAt`. */
export async function askReason(
  handling: UpdateHandling,
  query: CallbackQuery & { message: TelegramMessage },
  token: string,
  request: ApprovalRequest,
  expiresAt: number,
): Promise<void> {
  await sendReplyPrompt(handling, query, {
    kind: 'reason',
    token,
    expiresAt,
    note: 'Reply to the message below with a reason, or send /skip.',
    text: `why deny <b>${escapeMarkup(request.toolName)}</b>? Reply with a reason, or send /skip.`,
    placeholder: 'Why deny? Or /skip',
  });
}

/** Decides a deny whose prompt `message` replies to, when its sender pressed Deny; anything else is left alone. */
export async function answerReason(handling: UpdateHandling, message: TelegramMessage): Promise<void> {
  const replied = await promptRepliedTo(handling, message, 'reason');
  if (replied === undefined || replied === 'other') return;
  const { once } = handling.runtime;
  const { prompt: pending, key, held } = replied;
  // One reply decides: a second one (or a redelivery elsewhere) finds the prompt gone.
  if (!(await once.replace(key, held, undefined, 1000))) return;
  const text = replied.text.trim();
  const reason = /^\/skip(@\w+)?$/i.test(text) || text === '' ? undefined : text.slice(0, MAX_REASON);
  const reply = await decideFor(handling, pending.token, replied.userId, reason);
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
