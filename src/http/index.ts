export {
  createWebhookNotifier,
  type WebhookDeadLetter,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookNotifier,
  type WebhookNotifierOptions,
  type WebhookRunRef,
} from './webhook-notifier.js';
