// Answers to a question in Telegram: a pressed option, or a reply to the force-reply prompt Answer sends. Each is read
// with the kit's readAnswer and checked before anything is recorded: a refused one is told to the person (the prompt
// stays open for another reply), a good one decided with the approve token and shown on the card.
import type { ApprovalRequest, LinkClaim } from '../../index.js';
import { answerRefusal, escapeMarkup, readAnswer } from '../../kit/index.js';
import { showOnCard, type TelegramCardRef } from './posted-cards.js';
import { promptRepliedTo, sendReplyPrompt } from './reply-prompt.js';
import { plainText, telegramMarkup } from './telegram-markup.js';
import type { CallbackQuery, TelegramMessage } from './update-schema.js';
import { decideFor, tryBotApi, type UpdateHandling } from './update-handling.js';

/** What `token` grants, or undefined when it is forged or expired (deciding it says which). */
export async function claimOf(handling: UpdateHandling, token: string): Promise<LinkClaim | undefined> {
  try {
    return handling.runtime.links.verify(token);
  } catch {
    return undefined;
  }
}

/** The request `claim` names, while it is still pending (undefined when the run is gone or the store is down). */
export async function pendingOf(handling: UpdateHandling, claim: LinkClaim): Promise<ApprovalRequest | undefined> {
  const snapshot = await handling.runtime.get(claim.runId).catch(() => undefined);
  return snapshot?.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
}

/**
 * Answers the question of `request` with `entries` as Telegram user `userId`: a refused answer is said (nothing
 * recorded, `false`), a good one decided and shown on `card` (`true`). Where a refusal goes is `refuse`'s.
 */
async function answerWith(
  handling: UpdateHandling,
  input: { token: string; userId: number; card: TelegramCardRef | undefined; request: ApprovalRequest },
  entries: [string, string][],
  refuse: (text: string) => Promise<void>,
): Promise<boolean> {
  const { answer, issues } = readAnswer(input.request.question!, entries);
  if (issues.length > 0) {
    await refuse(answerRefusal(input.request.question, issues, telegramMarkup));
    return false;
  }
  const reply = await decideFor(handling, input.token, input.userId, undefined, answer);
  if (reply.replace && input.card !== undefined)
    await showOnCard(handling.api, handling.runtime.once, input.card, reply.text).catch((error: unknown) =>
      handling.report(error, { operation: 'bot-api' }),
    );
  else await refuse(reply.text);
  return true;
}

/** A pressed option of a question's one choice (a forged index is refused as the text it is). */
export async function answerOption(
  handling: UpdateHandling,
  query: CallbackQuery,
  token: string,
  request: ApprovalRequest,
  option: number,
): Promise<void> {
  const [field] = request.question!.fields;
  const picked = (field?.kind === 'choice' ? field.options[option] : undefined) ?? String(option);
  const card =
    query.message === undefined ? undefined : { chatId: query.message.chat.id, messageId: query.message.message_id };
  const tell = (text: string) =>
    tryBotApi(handling, 'answerCallbackQuery', {
      callback_query_id: query.id,
      text: plainText(text).slice(0, 200),
      show_alert: true,
    }).then(() => undefined);
  const answered = await answerWith(
    handling,
    { token, userId: query.from.id, card, request },
    [[field!.name, picked]],
    tell,
  );
  if (answered)
    await tryBotApi(handling, 'answerCallbackQuery', { callback_query_id: query.id, text: 'Answer recorded.' });
}

/** Answer on a question answered by typing: a force-reply prompt to the clicker, kept until the question expires. */
export async function askAnswer(
  handling: UpdateHandling,
  query: CallbackQuery & { message: TelegramMessage },
  token: string,
  request: ApprovalRequest,
  expiresAt: number,
): Promise<void> {
  const field = request.question!.fields[0]!;
  await sendReplyPrompt(handling, query, {
    kind: 'answer',
    token,
    expiresAt,
    note: 'Reply to the message below.',
    text: `your answer: <b>${escapeMarkup(field.title)}</b>? Reply to this message.`,
    placeholder: field.title,
  });
}

/**
 * A reply to an answer prompt by the person it asked: read and checked, a refused one told in the chat (the prompt
 * stays for another reply), a good one recorded once. False when `message` answers no prompt of ours.
 */
export async function answerTyped(handling: UpdateHandling, message: TelegramMessage): Promise<boolean> {
  const replied = await promptRepliedTo(handling, message, 'answer');
  if (replied === undefined) return false;
  if (replied === 'other') return true;
  const { prompt, key, held, userId } = replied;
  const say = async (text: string) => {
    await tryBotApi(handling, 'sendMessage', {
      chat_id: message.chat.id,
      text,
      parse_mode: 'HTML',
      reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
    });
  };
  const request = await claimOf(handling, prompt.token).then((claim) => claim && pendingOf(handling, claim));
  const field = request?.question?.fields[0];
  if (request === undefined || field === undefined) {
    // Decided, expired or gone: deciding says which.
    await say((await decideFor(handling, prompt.token, userId)).text);
    return true;
  }
  const input = { token: prompt.token, userId, card: prompt.card, request };
  // One good reply decides: a second one (or a redelivery elsewhere) finds the prompt gone.
  if (await answerWith(handling, input, [[field.name, replied.text]], say))
    await handling.runtime.once.replace(key, held, undefined, 1000);
  return true;
}
