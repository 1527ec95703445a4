export { DeliveryError } from '../../errors.js';
export {
  deliveryOptionsShape,
  deliverySettings,
  type DeliveryOptions,
  type DeliverySettings,
} from './delivery-options.js';
export { createDeliveryQueue, type DeliveryQueue, type LaneSlot } from './delivery-queue.js';
export { parseRetryAfter } from './retry-after.js';
export { withRetries, retryDelay, wait, type RetryPolicy } from './retry.js';
export { sendJson, type JsonAnswer, type SendOptions } from './send-json.js';
