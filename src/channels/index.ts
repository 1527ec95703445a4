// The channel kit: what every approval channel (Slack, Telegram, Discord, email, your own) is built from.
export {
  createChannelNotifier,
  type ApprovalCard,
  type CardUpdate,
  type ChannelDriver,
  type ChannelErrorContext,
  type ChannelNotifier,
  type ChannelNotifierSettings,
} from './channel-notifier.js';
export { channelSettings, type ChannelOptions } from './channel-options.js';
export type { DeliveryOptions } from '../kit/delivery/delivery-options.js';
export type { ChannelRoute } from './channel-route.js';
export { answerClick, type Click } from './decide-click.js';
export { storeButtonIds, tokenOfButton, type ButtonIds } from './button-ids.js';
export { argsJson, escapeMarkup, fitEscaped, type Markup } from '../kit/markup.js';
export { classifyRefusal, type Refusal } from './refusal.js';
export { annotationLine, partitionWarnings, type NoteMarks } from './request-notes.js';
export {
  cardHead,
  cardWarnings,
  decidedReply,
  nudgeLine,
  outcomeLine,
  refusalReply,
  settledText,
  widerLabel,
  widerOffer,
  type CardNudge,
  type CardOutcome,
  type ClickReply,
} from './wording.js';
