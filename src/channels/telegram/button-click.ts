// A click on a card's button: `cs:<short id>` stands for a one-click token (storeButtonIds). Approve and approve
// for the run decide at once; Deny on a pending approval asks for a reason first (deny-reason.ts). The clicker is
// answered (a toast, or an alert when the approval stays open) and the card shows the outcome, buttons removed.
import { tokenOfButton } from '../button-ids.js';
import type { ApprovalRequest, LinkClaim } from '../../index.js';
import type { ClickReply } from '../../kit/index.js';
import { CALLBACK_PREFIX, readCallbackData } from './callback-data.js';
import { askReason } from './deny-reason.js';
import { answerOption, askAnswer, claimOf, pendingOf } from './question-answers.js';
import { questionMode } from './question-card.js';
import { showOnCard } from './posted-cards.js';
import { plainText } from './telegram-markup.js';
import type { CallbackQuery } from './update-schema.js';
import { decideFor, tryBotApi, type UpdateHandling } from './update-handling.js';

/** Telegram's cap on a callback answer's text. */
const ANSWER_LIMIT = 200;

/** Whether `query` is a click on one of countersign's buttons. */
export const isOurButton = (query: CallbackQuery | undefined): query is CallbackQuery & { data: string } =>
  query?.data?.startsWith(CALLBACK_PREFIX) === true;

/** Tells the clicker `reply`: a toast when the card itself will read it, else an alert (the approval stays open). */
async function tell(handling: UpdateHandling, query: CallbackQuery, reply: ClickReply): Promise<void> {
  const answer = reply.replace
    ? { text: reply.short }
    : { text: plainText(reply.text).slice(0, ANSWER_LIMIT), show_alert: true };
  await tryBotApi(handling, 'answerCallbackQuery', { callback_query_id: query.id, ...answer });
}

export async function answerButton(handling: UpdateHandling, query: CallbackQuery & { data: string }): Promise<void> {
  const { id, option } = readCallbackData(query.data);
  const token = await tokenOfButton(handling.runtime.once, 'telegram', id);
  if (token === undefined) {
    await tryBotApi(handling, 'answerCallbackQuery', {
      callback_query_id: query.id,
      text: 'This button is no longer valid (unknown or expired); nothing was done.',
      show_alert: true,
    });
    return;
  }
  const { message } = query;
  // Forged or expired: deciding it answers why.
  const claim = await claimOf(handling, token);
  if (claim?.decision === 'deny' && message !== undefined) {
    // A run gone, or a store down: deciding answers why, with no prompt.
    const request = await pendingOf(handling, claim);
    // Decided already: deciding again answers how, with no prompt.
    if (request !== undefined) return askReason(handling, { ...query, message }, token, request, claim.expiresAt);
  }
  if (claim?.decision === 'approve') {
    const request = await pendingOf(handling, claim);
    if (request?.question !== undefined) return askQuestion(handling, query, token, request, { option, claim });
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

/** A click on a question's card: an option picked, Answer (a prompt to reply to), or where to answer it instead. */
async function askQuestion(
  handling: UpdateHandling,
  query: CallbackQuery,
  token: string,
  request: ApprovalRequest,
  { option, claim }: { readonly option: number | undefined; readonly claim: LinkClaim },
): Promise<void> {
  const mode = questionMode(request.question!);
  if (option !== undefined && mode === 'options') return answerOption(handling, query, token, request, option);
  if (mode === 'reply' && query.message !== undefined)
    return askAnswer(handling, { ...query, message: query.message }, token, request, claim.expiresAt);
  await tryBotApi(handling, 'answerCallbackQuery', {
    callback_query_id: query.id,
    text:
      mode === 'options'
        ? 'Pick one of the answers on the card; nothing was done.'
        : 'This question is answered on its page or in the approval console; nothing was done.',
    show_alert: true,
  });
}
