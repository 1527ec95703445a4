// countersign/telegram: approvals asked in Telegram chats, decided with inline buttons.
export { createTelegramNotifier, type TelegramNotifierOptions } from './telegram-notifier.js';
export { createTelegramUpdates, type TelegramUpdatesOptions } from './telegram-updates.js';
export type { TelegramUpdatesErrorContext } from './update-handling.js';
