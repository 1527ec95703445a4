// The schemas of the request routes (`POST /approvals`, `GET /approvals/:requestId`, its cancel) beside the ask's own
// (`approvalAskSchema`, the core's): the long-poll's query, the cancel's body, and the state answered (documentation).
import { z } from 'zod';
import { auditSchema, scopeSchema } from '../kit/index.js';
import { approvalRequestSchema } from './schemas.js';

/** The longest a `GET /approvals/:requestId` waits for the decision. */
export const MAX_WAIT_MS = 60_000;

/** `GET /approvals/:requestId` query. */
export const requestWaitQuery = z.object({
  waitMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_MS)
    .default(0)
    .describe(
      'Wait up to this long (ms) for the decision, answering as soon as it is recorded; 0 (default) answers at once.',
    ),
});

/** `POST /approvals/:requestId/cancel` (an empty body is fine with a bearer token; a signed one names its `requestId`). */
export const requestCancelBody = z.strictObject({
  requestId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('The request of the URL. Required in a Standard-Webhooks-signed body; checked against the URL.'),
  reason: z.string().max(1000).optional(),
});

// Documentation only: the server answers `RequestState` values as `handle.status()` reads them.

export const requestStateSchema = z.object({
  id: z.string().describe('The request id (its run id): decide it with POST /runs/{id}/approvals/{approvalId}.'),
  status: z.enum(['pending', 'approved', 'denied', 'expired', 'dismissed', 'cancelled', 'failed']),
  approved: z.boolean().describe("True only for 'approved'."),
  request: approvalRequestSchema
    .optional()
    .describe('While pending: what the person is asked (its approvalId, display copy, approvers, expiry).'),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("On 'approved': the arguments to act on, the person's edit when they edited them."),
  by: z.string().optional().describe('Who decided.'),
  source: auditSchema.shape.source.optional().describe('What decided; absent for a cancel or a failure.'),
  reason: z.string().optional(),
  at: z.number().optional().describe('When it was decided, by the server clock (absent while pending).'),
  scope: scopeSchema.optional(),
  approvalId: z.string().optional(),
  ruleId: z.string().optional(),
  signature: z
    .string()
    .optional()
    .describe("The decision's signature, as the run's audit keeps it, when the request policy has a decisionSecret."),
});
