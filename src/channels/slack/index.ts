// countersign/slack: approvals in Slack, built on the channel kit (countersign/channels).
export { createSlackNotifier, type SlackNotifierOptions } from './slack-notifier.js';
export { createSlackActions } from './slack-actions.js';
export type { SlackActionsErrorContext, SlackActionsOptions } from './slack-actions-options.js';
export { SLACK_ACTION_IDS } from './slack-card.js';
export { slackEscape, slackWho } from './slack-markup.js';
