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
export { channelOptionsShape, channelSettings, linkedRuntimeSchema, type ChannelOptions } from './channel-options.js';
export type { DeliveryOptions } from '../kit/delivery/delivery-options.js';
export type { ChannelRoute } from '../kit/surface/channel-route.js';
export { answerClick, decideWithLink, type Click } from '../kit/surface/decide-click.js';
export { storeButtonIds, tokenOfButton, BUTTON_ID_PATTERN, type ButtonIds } from './button-ids.js';
export { argsJson, escapeMarkup, fitEscaped, type Markup } from '../kit/markup.js';
export { classifyRefusal, type Refusal } from '../kit/surface/refusal.js';
export { annotationLine, partitionWarnings, type NoteMarks } from '../kit/surface/request-notes.js';
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
} from '../kit/surface/wording.js';
