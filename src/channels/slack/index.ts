// countersign/slack: approvals in Slack, built on the channel kit (countersign/channels).
export { createSlackNotifier, type SlackNotifierOptions } from './slack-notifier.js';
export { createSlackActions, type SlackActionsErrorContext, type SlackActionsOptions } from './slack-actions.js';
export { SLACK_ACTION_IDS } from './slack-card.js';
export { slackEscape, slackWho } from './slack-markup.js';
