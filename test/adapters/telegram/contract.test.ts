// The channel contract for Telegram: the notifier posts to a fake Bot API on loopback, clicks come back through
// the webhook route as Updates (Deny answered with /skip by the same user, as a person would).
import { createTelegramNotifier, createTelegramUpdates } from 'countersign/telegram';
import { channelContract, type Delivery, type FaultPlan } from '../../support/channel-contract.js';
import {
  renderHtml,
  startFakeTelegram,
  TELEGRAM_BOT_TOKEN,
  CHAT_ID,
  type TelegramRequest,
} from '../../support/fake-telegram.js';
import { type Button, cards, clickUpdate, prompts, replyUpdate, SECRET_TOKEN } from './telegram-world.js';

/** The tags the card and the outcome lines are written with; any other tag came from someone else's text. */
const TEMPLATE_TAGS = new Set(['<b>', '</b>', '<i>', '</i>', '<pre>', '</pre>', '<code>', '</code>']);

/** A card Telegram took (sendMessage asking for a decision) or an edit; refused posts, prompts and callback answers are not deliveries. */
function delivery(request: TelegramRequest): Delivery | undefined {
  const posted = request.messageId !== undefined && String(request.json['text']).startsWith('<b>Approval needed</b>');
  const kind = request.method === 'editMessageText' ? 'update' : posted ? 'post' : undefined;
  if (kind === undefined) return undefined;
  const { visible, tags, error } = renderHtml(String(request.json['text'] ?? ''));
  // Text Telegram refuses to parse is active markup too: it would not reach anyone as written.
  return {
    kind,
    visible,
    active: [...tags.filter((tag) => !TEMPLATE_TAGS.has(tag)), ...(error === undefined ? [] : [error])],
  };
}

/** Channel users of the contract (`U1`) as Telegram user ids. */
const userId = (user: string) => Number(user.replace(/\D/g, '')) + 1000;

channelContract({
  name: 'telegram',
  secrets: [TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_TOKEN.split(':')[1]!],
  async setup(runtime, { faults = [], echoSecretsInErrors = false }) {
    const plan: FaultPlan[number][] = [...faults];
    const telegram = await startFakeTelegram((request) => {
      if (request.method !== 'sendMessage') return undefined;
      const fault = plan.shift();
      if (!fault) return undefined;
      const description = echoSecretsInErrors
        ? `Forbidden: bot${TELEGRAM_BOT_TOKEN} was blocked at /bot${TELEGRAM_BOT_TOKEN}/sendMessage`
        : 'Too Many Requests';
      const parameters =
        fault.retryAfterSeconds === undefined ? {} : { parameters: { retry_after: fault.retryAfterSeconds } };
      return {
        status: fault.status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok: false, error_code: fault.status, description, ...parameters }),
      };
    });
    const sleeps: number[] = [];
    const errors: unknown[] = [];
    const make = () =>
      createTelegramNotifier({
        runtime,
        botToken: TELEGRAM_BOT_TOKEN,
        chatId: CHAT_ID,
        apiUrl: telegram.apiUrl,
        sleep: async (ms) => void sleeps.push(ms),
        random: () => 0.5,
        onError: (error) => errors.push(error),
      });
    const route = createTelegramUpdates({
      runtime,
      botToken: TELEGRAM_BOT_TOKEN,
      secretToken: SECRET_TOKEN,
      apiUrl: telegram.apiUrl,
      onError: (error) => errors.push(error),
    });
    const deliver = async (update: unknown) => {
      const work: Promise<unknown>[] = [];
      const request = new Request('http://approvals.test/telegram/webhook', {
        method: 'POST',
        headers: { 'x-telegram-bot-api-secret-token': SECRET_TOKEN },
        body: JSON.stringify(update),
      });
      await route.fetch(request, { waitUntil: (promise) => void work.push(promise) });
      await Promise.all(work);
    };
    /** What the clicker reads after `act`: the line added to the card, else the alert they got. */
    const told = async (act: () => Promise<void>) => {
      const before = telegram.requests.length;
      await act();
      const after = telegram.requests.slice(before);
      const edit = after.findLast((request) => request.method === 'editMessageText');
      if (edit) return renderHtml(String(edit.json['text'])).visible.split('\n\n').at(-1)!;
      return String(after.findLast((request) => request.method === 'answerCallbackQuery')?.json['text']);
    };
    return {
      notifier: make(),
      another: make,
      deliveries: () => telegram.requests.map(delivery).filter((item) => item !== undefined),
      sleeps,
      errors,
      buttons: (index) =>
        (
          (cards(telegram)[index]!.request.json['reply_markup'] ?? { inline_keyboard: [] }) as {
            inline_keyboard: { text: string }[][];
          }
        ).inline_keyboard
          .flat()
          .map((item) => item.text),
      decider: (user) => `telegram:${userId(user)}`,
      async click(index, button, user) {
        const card = cards(telegram)[index]!;
        if (button !== 'deny')
          return told(() =>
            deliver(clickUpdate(card, button === 'approve' ? card.approve : card.approveForRun, userId(user))),
          );
        return told(async () => {
          await deliver(clickUpdate(card, card.deny, userId(user)));
          const prompt = prompts(telegram).at(-1)!;
          await deliver(replyUpdate(card.chatId, prompt.messageId, '/skip', userId(user)));
        });
      },
      async answer(index, value, user) {
        const card = cards(telegram)[index]!;
        const keyboard = (card.request.json['reply_markup'] as { inline_keyboard: Button[][] }).inline_keyboard.flat();
        const form = [renderHtml(String(card.request.json['text'])).visible, ...keyboard.map((item) => item.text)].join(
          '\n',
        );
        const before = telegram.requests.length;
        const answerButton = keyboard.find((item) => item.text.includes('Answer'));
        if (answerButton === undefined) {
          // One choice: a button per option; an option it does not offer is a forged index.
          const option = keyboard.find((item) => item.text === value) ?? {
            ...keyboard[0]!,
            callback_data: keyboard[0]!.callback_data.replace(/:\d+$/, ':7'),
          };
          await deliver(clickUpdate(card, option, userId(user)));
        } else {
          // Answer sends a prompt; the reply to it is the answer.
          const asked = prompts(telegram).length;
          await deliver(clickUpdate(card, answerButton, userId(user)));
          const prompt = prompts(telegram)[asked];
          if (prompt) await deliver(replyUpdate(card.chatId, prompt.messageId, value, userId(user)));
        }
        const after = telegram.requests.slice(before);
        const edit = after.findLast((request) => request.method === 'editMessageText');
        const said = after.findLast(
          (request) =>
            (request.method === 'answerCallbackQuery' && request.json['show_alert'] === true) ||
            (request.method === 'sendMessage' && request.json['reply_markup'] === undefined),
        );
        const told = edit
          ? renderHtml(String(edit.json['text'])).visible.split('\n\n').at(-1)!
          : said?.method === 'sendMessage'
            ? renderHtml(String(said.json['text'])).visible
            : String(said?.json['text'] ?? '');
        return { form, told };
      },
      close: () => telegram.close(),
    };
  },
});
