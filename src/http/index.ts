export { createApprovalApp, type ApprovalAppOptions, type ApprovalAppErrorContext } from './create-approval-app.js';
export { serve, type ServeHandle, type ServeOptions } from './serve.js';
export type { EventFeed } from './events-route.js';
export { openApiDocument } from './openapi.js';
export { runView, type RunView } from './run-view.js';
export { problemFor, HttpProblem, type Problem } from '../web/problem.js';
export { createSlackNotifier, type SlackNotifier, type SlackNotifierErrorContext, type SlackNotifierOptions } from './slack-notifier.js';
export type { SlackActionsOptions } from './slack-actions.js';
export { escapeSlack, SLACK_ACTION_IDS } from './slack-message.js';
export {
  createTelegramNotifier,
  telegramApprovalText,
  type TelegramNotifier,
  type TelegramNotifierErrorContext,
  type TelegramNotifierOptions,
} from './telegram-notifier.js';
export type { TelegramWebhookOptions } from './telegram-webhook.js';
export { escapeTelegram } from './telegram-api.js';
