// countersign/webhooks: run events POSTed as signed Standard Webhooks, and the signing and checking of such deliveries.
export { createWebhookNotifier, type WebhookNotifier } from './webhook-notifier.js';
export type { WebhookNotifierOptions } from './webhook-options.js';
export type { WebhookDeadLetter } from './dead-letters.js';
export type {
  WebhookEvent,
  WebhookEventType,
  WebhookNudge,
  WebhookRunRef,
  WebhookSession,
  WebhookToolFinished,
} from './webhook-events.js';
export {
  signWebhook,
  verifyWebhook,
  webhookSignature,
  verifyWebhookAsymmetric,
  webhookAsymmetricSignature,
  webhookPublicKey,
  type WebhookHeaders,
  type WebhookRejection,
} from '../../kit/index.js';
