// Questions in Telegram beyond the contract: a form Telegram cannot ask in place links to its page (baseUrl) or says
// to answer in the console, and a number typed in reply to Answer's prompt arrives as a number.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approvalLinkUrl } from 'countersign';
import { createTelegramNotifier, createTelegramUpdates } from 'countersign/telegram';
import { CHAT_ID, startFakeTelegram, TELEGRAM_BOT_TOKEN, type FakeTelegram } from '../../support/fake-telegram.js';
import { questionWorld, WHOLE_FORM } from '../../support/question-world.js';
import { type Button, cards, clickUpdate, prompts, replyUpdate, SECRET_TOKEN } from './telegram-world.js';

let telegram: FakeTelegram | undefined;
afterEach(async () => {
  await telegram?.close();
  telegram = undefined;
});

async function asked(form: z.ZodObject, baseUrl?: string) {
  telegram = await startFakeTelegram();
  const world = questionWorld();
  const notifier = createTelegramNotifier({
    runtime: world.runtime,
    botToken: TELEGRAM_BOT_TOKEN,
    chatId: CHAT_ID,
    apiUrl: telegram.apiUrl,
    ...(baseUrl === undefined ? {} : { baseUrl }),
  });
  const route = createTelegramUpdates({
    runtime: world.runtime,
    botToken: TELEGRAM_BOT_TOKEN,
    secretToken: SECRET_TOKEN,
    apiUrl: telegram.apiUrl,
  });
  const { runId, approvalId } = await world.ask(form);
  await notifier.publish(world.events);
  await notifier.flush();
  const deliver = async (update: unknown) => {
    const work: Promise<unknown>[] = [];
    await route.fetch(
      new Request('http://approvals.test/telegram/webhook', {
        method: 'POST',
        headers: { 'x-telegram-bot-api-secret-token': SECRET_TOKEN },
        body: JSON.stringify(update),
      }),
      { waitUntil: (promise) => void work.push(promise) },
    );
    await Promise.all(work);
  };
  const keyboard = () =>
    (cards(telegram!)[0]!.request.json['reply_markup'] as { inline_keyboard: { text: string; url?: string }[][] })
      .inline_keyboard;
  return { world, runId, approvalId, deliver, keyboard, fake: telegram };
}

describe('a question in Telegram', () => {
  it('links a form it cannot ask in place to its page, or says to answer in the console', async () => {
    const linked = await asked(WHOLE_FORM, 'https://approvals.example.com');
    const [answer, decline] = linked.keyboard();
    expect(answer![0]!.text).toBe('✍️ Answer on its page');
    expect(answer![0]!.url!.startsWith(approvalLinkUrl('https://approvals.example.com', ''))).toBe(true);
    expect(decline![0]!.text).toBe('❌ Decline');
    await linked.fake.close();

    const unlinked = await asked(WHOLE_FORM);
    expect(
      unlinked
        .keyboard()
        .flat()
        .map((button) => button.text),
    ).toEqual(['❌ Decline']);
    expect(String(cards(unlinked.fake)[0]!.request.json['text'])).toContain('answered in the approval console');
  });

  it('takes a number typed in reply to the prompt as a number, after refusing one out of range', async () => {
    const { world, runId, deliver, fake } = await asked(z.object({ nodes: z.number().int().min(1).max(9) }));
    const card = cards(fake)[0]!;
    const answer = (card.request.json['reply_markup'] as { inline_keyboard: Button[][] }).inline_keyboard[0]![0]!;
    expect(answer.text).toBe('✍️ Answer');
    await deliver(clickUpdate(card, answer, 1001));
    const prompt = prompts(fake).at(-1)!;
    await deliver(replyUpdate(card.chatId, prompt.messageId, '12', 1001));
    expect(String(fake.calls('sendMessage').at(-1)!.json['text'])).toMatch(
      /Not recorded: <b>nodes<\/b> must be at most 9/,
    );
    expect((await world.runtime.get(runId)).audit).toEqual([]);
    // Someone else's reply to the prompt is not an answer.
    await deliver(replyUpdate(card.chatId, prompt.messageId, '3', 2002));
    expect((await world.state(runId)).status).toBe('pending');
    await deliver(replyUpdate(card.chatId, prompt.messageId, ' 4 ', 1001));
    expect(await world.state(runId)).toMatchObject({ status: 'approved', by: 'telegram:1001', answer: { nodes: 4 } });
  });
});
