// A click on a card's button: `cs:<short id>` stands for a one-click token (storeButtonIds). Approve and approve
// for the run decide at once; Deny on a pending approval asks for a reason first (deny-reason.ts). The clicker is
// answered (a toast, or an alert when the approval stays open) and the card shows the outcome, buttons removed.
import { tokenOfButton } from '../button-ids.js';
import type { LinkClaim } from '../../index.js';
import type { ClickReply } from '../../kit/index.js';
import { CALLBACK_PREFIX } from './approval-card.js';
import { askReason } from './deny-reason.js';
import { showOnCard } from './posted-cards.js';
import { plainText } from './telegram-markup.js';
import type { CallbackQuery } from './update-schema.js';
import { decideFor, tryBotApi, type UpdateHandling } from './update-handling.js';

/** Telegram's cap on a callback answer's text. */
const ANSWER_LIMIT = 200;

/** Whether `query` is a click on one of countersign's buttons. */
export const isOurButton = (query: CallbackQuery | undefined): query is CallbackQuery & { data: string } =>
  query?.data?.startsWith(CALLBACK_PREFIX) === true;

function claimOf(handling: UpdateHandling, token: string): LinkClaim | undefined {
  try {
    return handling.runtime.links.verify(token);
  } catch {
    // Forged or expired: deciding it answers why.
    return undefined;
  }
}

/** Tells the clicker `reply`: a toast when the card itself will read it, else an alert (the approval stays open). */
async function tell(handling: UpdateHandling, query: CallbackQuery, reply: ClickReply): Promise<void> {
  const answer = reply.replace
    ? { text: reply.short }
    : { text: plainText(reply.text).slice(0, ANSWER_LIMIT), show_alert: true };
  await tryBotApi(handling, 'answerCallbackQuery', { callback_query_id: query.id, ...answer });
}

export async function answerButton(handling: UpdateHandling, query: CallbackQuery & { data: string }): Promise<void> {
  const token = await tokenOfButton(handling.runtime.once, 'telegram', query.data.slice(CALLBACK_PREFIX.length));
  if (token === undefined) {
    await tryBotApi(handling, 'answerCallbackQuery', {
      callback_query_id: query.id,
      text: 'This button is no longer valid (unknown or expired); nothing was done.',
      show_alert: true,
    });
    return;
  }
  const { message } = query;
  const claim = claimOf(handling, token);
  if (claim?.decision === 'deny' && message !== undefined) {
    // A run gone, or a store down: deciding answers why, with no prompt.
    const snapshot = await handling.runtime.get(claim.runId).catch(() => undefined);
    const request = snapshot?.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
    // Decided already: deciding again answers how, with no prompt.
    if (request !== undefined) return askReason(handling, { ...query, message }, token, request, claim.expiresAt);
  }
  const reply = await decideFor(handling, token, query.from.id);
  await tell(handling, query, reply);
  if (reply.replace && message !== undefined) {
    await showOnCard(
      handling.api,
      handling.runtime.once,
      { chatId: message.chat.id, messageId: message.message_id },
      reply.text,
    ).catch((error: unknown) => handling.report(error, { operation: 'bot-api' }));
  }
}
