export {
  createWebhookNotifier,
  type WebhookDeadLetter,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookNotifier,
  type WebhookNotifierOptions,
  type WebhookRunRef,
} from './webhook-notifier.js';
export { createApprovalApp, type ApprovalAppOptions, type ApprovalAppErrorContext } from './create-approval-app.js';
export { serve, type ServeHandle, type ServeOptions } from './serve.js';
export type { EventFeed } from './events-route.js';
export { openApiDocument } from './openapi.js';
export { runView, type RunView } from './run-view.js';
export { problemFor, HttpProblem, type Problem } from '../web/problem.js';
export { signWebhook, verifyWebhook, webhookSignature, type WebhookHeaders, type WebhookRejection } from './standard-webhooks.js';
export {
  createTelegramNotifier,
  telegramApprovalText,
  type TelegramNotifier,
  type TelegramNotifierErrorContext,
  type TelegramNotifierOptions,
} from './telegram-notifier.js';
export type { TelegramWebhookOptions } from './telegram-webhook.js';
export { escapeTelegram } from './telegram-api.js';
