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
export { createSlackNotifier, type SlackNotifier, type SlackNotifierErrorContext, type SlackNotifierOptions } from './slack-notifier.js';
export type { SlackActionsOptions } from './slack-actions.js';
export { escapeSlack, SLACK_ACTION_IDS } from './slack-message.js';
