// The integration kit: the one internal entry every adapter (models/, stores/redis/, channels/, mcp/, http/,
// testing/) imports besides the public entries (src/index.ts and each subpath's index.ts). Biome refuses any other
// reach from an adapter into another room (biome.json, noRestrictedImports), so this list is the whole of what the
// adapters know of the inside: a change here is a change of the contract between the core and its adapters.
// Nothing here is public: the package exports no `kit` subpath.
//
// The kit's own parts: option parsing (options.ts), delivery with retries and Standard Webhooks signatures
// (delivery/), problem responses and request bodies (web/), markup and the wording every surface shares
// (markup.ts, surface/), and the plumbing of model providers (model/).

export { DeliveryError } from '../errors.js';
export { decisionOutcome, type DecisionOutcome } from '../run/decision-outcome.js';
export {
  deliveryOptionsShape,
  deliverySettings,
  type DeliveryOptions,
  type DeliverySettings,
} from './delivery/delivery-options.js';
export { createDeliveryQueue, type LaneSlot } from './delivery/delivery-queue.js';
export { parseRetryAfter } from './delivery/retry-after.js';
export { freeingSlot, retryDelay, wait, withRetries, type RetryPolicy } from './delivery/retry.js';
export { sendJson } from './delivery/send-json.js';
export {
  checkWebhookHeaders,
  signWebhook,
  verifyWebhook,
  webhookSignature,
  type WebhookHeaders,
  type WebhookRejection,
} from './delivery/standard-webhooks.js';
export {
  isWebhookSigningKey,
  verifyWebhookAsymmetric,
  webhookAsymmetricSignature,
  webhookPublicKey,
} from './delivery/asymmetric-webhooks.js';
export { argsJson, escapeHtml, escapeMarkup, fitEscaped, htmlMarkup, type Markup } from './markup.js';
export { ModelProviderError } from '../errors.js';
export {
  postToModel,
  readEventData,
  readModelAnswer,
  streamFromModel,
  type ModelEndpoint,
} from './model/model-http.js';
export { usageOf } from './model/model-usage.js';
export type { ServerSentEvent } from './model/server-sent-events.js';
export { streamOptionShape, streamingAsAsked } from './model/streaming-option.js';
export { dataUrl, fileLabel, filesOf, type FilePart } from './model/tool-result-files.js';
export { optionsObject, parseOptions } from '../options.js';
export type { ChannelRoute } from './surface/channel-route.js';
export {
  answerInputName,
  formAnswerEntries,
  readAnswer,
} from './surface/answer-form.js';
export { answerClick, type Click } from './surface/decide-click.js';
/** @internal */
export { decideWithLink } from './surface/decide-click.js';
export { classifyRefusal, linkRun, type Refusal } from './surface/refusal.js';
export {
  claimOffered,
  decisionButtons,
  decisionChoices,
  NO_BUTTONS_TEXT,
  type DecisionButton,
  type DecisionChoices,
} from './surface/decision-buttons.js';
export {
  annotationLine,
  delegationLine,
  partitionWarnings,
  votesLine,
  type NoteMarks,
} from './surface/request-notes.js';
export { answerRefusal, fieldHint } from './surface/question-wording.js';
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
} from './surface/wording.js';
export { answerOptionsShape, maxBodyBytesSchema, resumeModeOf } from './web/answer-options.js';
export { problem, problemFor, problemResponse } from './web/problem.js';
export { HttpProblem, type Problem } from '../errors.js';
export { parseJsonBody, parseWith, readRawBody, tooLarge } from './web/read-body.js';

// Names of the core that adapters use and users do not: schemas and codecs the stores and routes share,
// presentation helpers, and the runtime hooks an adapter needs.
export { approversNow } from '../decisions/authority/who-may-decide.js';
export { samePerson } from '../decisions/authority/person-name.js';
export { grantBoundsSchema, scopeSchema } from '../run/grant-bounds.js';
export { runNextNudgeAt } from '../policy/nudge.js';
export { policyOptionsShape } from '../policy/policy-options.js';
/** @internal */
export { expiryDecisions } from '../policy/expiry.js';
export { presentText } from '../presentation/display-text.js';
export { httpStatusText, publicError, publicText } from '../presentation/public-text.js';
export { redactSecrets } from '../presentation/redact-secrets.js';
export { digestOf } from '../run/digest.js';
export { deepFreeze } from '../run/freeze.js';
export { functionSchema } from '../run/function-schema.js';
export { isPlainJson } from '../run/plain-json.js';
export { idSchema } from '../run/run-identity.js';
export { checkMessages, decodeHead, encodeHead, type SnapshotHead } from '../run/snapshot-codec.js';
export { auditSchema, requestSchema, runErrorSchema } from '../run/snapshot-schema.js';
export { httpUrlSchema } from '../run/url-schema.js';
export { awaitRun, type Outcome } from '../runtime/await-run.js';
export { idempotencyKeySchema, runIdForKey } from '../runtime/idempotent-start.js';
export { requireLinks } from '../runtime/link-runtime.js';
export { hasLiveLease } from '../runtime/runtime-maintenance.js';
export { runtimeOptionsSchema } from '../runtime/runtime-options.js';
export { isListed } from '../stores/memory/memory-grant-store.js';
export { checkTtl } from '../stores/memory/memory-once-store.js';
export {
  newRuleSchema,
  toStoredRule,
  changedRule,
  type RuleChange,
  unknownRule,
  type RuleStoreSigning,
} from '../stores/memory/memory-rule-store.js';
export { approvalAskSchema } from '../requests/approval-ask.js';
export { oneCallAgent } from '../requests/one-call-agent.js';
export { traceparentSchema } from '../run/traceparent.js';
export { oneCallInput } from '../requests/one-call-model.js';
export { nextRunEvent } from '../requests/next-run-event.js';
export { richResultOf } from '../tools/rich-tool-result.js';
export { resultContent } from '../run/tool-results.js';
