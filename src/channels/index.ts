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
export {
  type DeliveryOptions,
  type ChannelRoute,
  answerClick,
  type Click,
  argsJson,
  escapeMarkup,
  fitEscaped,
  type Markup,
  classifyRefusal,
  type Refusal,
  annotationLine,
  partitionWarnings,
  type NoteMarks,
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
} from '../kit/index.js';
export { storeButtonIds, tokenOfButton, type ButtonIds } from './button-ids.js';
