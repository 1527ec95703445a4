export { DeliveryError } from './delivery-error.js';
export { createDeliveryQueue, type DeliveryQueue, type LaneSlot } from './delivery-queue.js';
export { parseRetryAfter } from './retry-after.js';
export { withRetries, retryDelay, retryOptionsShape, wait, type RetryPolicy } from './retry.js';
export { sendJson, type JsonAnswer, type SendOptions } from './send-json.js';
