// A runtime whose tool needs approval, a fake Bot API on loopback, the Telegram notifier subscribed to the runtime,
// and the webhook route, called as Telegram calls it (secret-token header, Update JSON), its background work awaited.
import { afterEach } from 'vitest';
import {
  createMemoryStore,
  createRuntime,
  type LinkedRuntime,
  type OnceStore,
  type RunOrigin,
  type SnapshotStore,
} from 'countersign';
import type { ChannelNotifier } from 'countersign/channels';
import {
  createTelegramNotifier,
  createTelegramUpdates,
  type TelegramNotifierOptions,
  type TelegramUpdatesOptions,
} from 'countersign/telegram';
import { fileAgent } from '../../support/file-agent.js';
import {
  CHAT_ID,
  startFakeTelegram,
  TELEGRAM_BOT_TOKEN,
  type FakeTelegram,
  type TelegramRequest,
} from '../../support/fake-telegram.js';

export const SECRET_TOKEN = 'webhook_secret-0123456789';
export { SECRET_VALUE } from '../../support/file-agent.js';

export interface Reported {
  readonly error: unknown;
  readonly operation: string;
}

export interface TelegramWorld {
  readonly runtime: LinkedRuntime;
  readonly store: SnapshotStore;
  readonly telegram: FakeTelegram;
  readonly notifier: ChannelNotifier;
  readonly route: ReturnType<typeof createTelegramUpdates>;
  readonly executed: string[];
  readonly notifierErrors: Reported[];
  readonly updateErrors: Reported[];
  /** Posts `update` to the route as Telegram does and waits for the work it started. */
  deliver(update: unknown, secret?: string | null): Promise<Response>;
  close(): Promise<void>;
}

let nextUpdateId = 5000;

export async function telegramWorld(
  options: {
    readonly approvers?: string[];
    readonly notifier?: Partial<TelegramNotifierOptions>;
    readonly updates?: Partial<TelegramUpdatesOptions>;
    readonly telegram?: FakeTelegram;
    /** Where the runtime keeps claims (a memory one by default). */
    readonly once?: OnceStore;
  } = {},
): Promise<TelegramWorld> {
  const telegram = options.telegram ?? (await startFakeTelegram());
  // The connector carries markup of its own, so every card shows it escaped.
  const { agent, executed } = fileAgent({
    connector: 'files <prod>',
    ...(options.approvers ? { approvers: options.approvers } : {}),
  });
  const store = createMemoryStore();
  const runtime = createRuntime({
    agents: [agent],
    store,
    ...(options.once ? { once: options.once } : {}),
    links: { secret: 'link-secret-0123456789abcdef' },
  });
  const notifierErrors: Reported[] = [];
  const updateErrors: Reported[] = [];
  const notifier = createTelegramNotifier({
    runtime,
    botToken: TELEGRAM_BOT_TOKEN,
    chatId: CHAT_ID,
    apiUrl: telegram.apiUrl,
    sleep: async () => {},
    onError: (error, context) => notifierErrors.push({ error, operation: context.operation }),
    ...options.notifier,
  });
  runtime.subscribe((event) => void notifier.publish([event]));
  const route = createTelegramUpdates({
    runtime,
    botToken: TELEGRAM_BOT_TOKEN,
    secretToken: SECRET_TOKEN,
    apiUrl: telegram.apiUrl,
    onError: (error, context) => updateErrors.push({ error, operation: context.operation }),
    ...options.updates,
  });
  return {
    runtime,
    store,
    telegram,
    notifier,
    route,
    executed,
    notifierErrors,
    updateErrors,
    async deliver(update, secret = SECRET_TOKEN) {
      const work: Promise<unknown>[] = [];
      const response = await route.fetch(
        new Request('http://approvals.test/telegram/webhook', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
          },
          body: typeof update === 'string' ? update : JSON.stringify(update),
        }),
        { waitUntil: (promise) => void work.push(promise) },
      );
      await Promise.all(work);
      await notifier.flush();
      return response;
    },
    async close() {
      await notifier.flush();
      if (!options.telegram) await telegram.close();
    },
  };
}

export interface Button {
  readonly text: string;
  readonly callback_data: string;
}

/** A posted card: the sendMessage request, its message id and chat, and its buttons. */
export interface Card {
  readonly request: TelegramRequest;
  readonly messageId: number;
  readonly chatId: number;
  readonly approve: Button;
  readonly approveForRun: Button;
  readonly deny: Button;
}

/** The cards posted so far (sendMessage requests asking for a decision), with the ids Telegram gave them. */
export function cards(telegram: FakeTelegram): Card[] {
  const found: Card[] = [];
  for (const request of telegram.calls('sendMessage')) {
    const { messageId } = request;
    const keyboard = (request.json['reply_markup'] as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard;
    // A card whose request offers no decision a button makes has no keyboard.
    if (!String(request.json['text']).startsWith('<b>Approval needed</b>') || messageId === undefined) continue;
    // By label: a card shows a button only for a decision its request offers.
    const buttons = (keyboard ?? []).flat();
    const approve = buttons.find((button) => button.text === '✅ Approve');
    const approveForRun = buttons.find((button) => button.text.startsWith('✅ Approve for'));
    const deny = buttons.find((button) => button.text.startsWith('❌'));
    const chat = request.json['chat_id'];
    found.push({
      request,
      messageId,
      chatId: typeof chat === 'string' ? Number(chat) : (chat as number),
      approve: approve!,
      approveForRun: approveForRun!,
      deny: deny!,
    });
  }
  return found;
}

/** Starts a run that pauses on delete_file and returns it with the card posted for it. */
export async function paused(w: TelegramWorld, path = '/tmp/x', origin?: RunOrigin) {
  const run = await w.runtime.start('files', { input: path, ...(origin === undefined ? {} : { origin }) });
  await w.notifier.flush();
  const card = cards(w.telegram).at(-1);
  if (!card)
    throw new Error(`no card; notifier errors: ${w.notifierErrors.map((item) => String(item.error)).join('; ')}`);
  return { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId, card };
}

/** The Update Telegram sends when `userId` presses `button` on `card`. */
export function clickUpdate(card: Card, button: Button, userId: number) {
  return {
    update_id: ++nextUpdateId,
    callback_query: {
      id: `cq-${nextUpdateId}`,
      from: { id: userId, is_bot: false, first_name: 'Alice' },
      message: {
        message_id: card.messageId,
        date: 1_700_000_000,
        chat: { id: card.chatId, type: 'supergroup' },
        text: 'Approval needed',
      },
      chat_instance: '-123456789',
      data: button.callback_data,
    },
  };
}

/** The Update Telegram sends when `userId` replies `text` to message `replyTo` in `chatId`. */
export function replyUpdate(chatId: number, replyTo: number, text: string, userId: number) {
  return {
    update_id: ++nextUpdateId,
    message: {
      message_id: 9000 + nextUpdateId,
      date: 1_700_000_000,
      chat: { id: chatId, type: 'supergroup' },
      from: { id: userId, is_bot: false, first_name: 'Bob' },
      text,
      reply_to_message: {
        message_id: replyTo,
        date: 1_700_000_000,
        chat: { id: chatId, type: 'supergroup' },
        text: 'why deny?',
      },
    },
  };
}

/** The force-reply prompts the route sent (sendMessage with force_reply), with the message ids Telegram gave them. */
export function prompts(telegram: FakeTelegram): { readonly request: TelegramRequest; readonly messageId: number }[] {
  return telegram
    .calls('sendMessage')
    .filter(
      (request) =>
        (request.json['reply_markup'] as { force_reply?: boolean } | undefined)?.force_reply === true &&
        request.messageId !== undefined,
    )
    .map((request) => ({ request, messageId: request.messageId! }));
}

/** Worlds for one test file, each closed after its test (with anything pushed on `closers`). */
export function telegramWorlds() {
  const open: TelegramWorld[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((w) => w.close()));
    for (const close of closers.splice(0)) await close();
  });
  const world = async (options: Parameters<typeof telegramWorld>[0] = {}) => {
    const w = await telegramWorld(options);
    open.push(w);
    return w;
  };
  return { world, closers };
}
