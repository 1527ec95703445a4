import { z } from 'zod';
import { idSchema, auditSchema, requestSchema, grantBoundsSchema, runErrorSchema, scopeSchema } from '../kit/index.js';

// Request schemas validate at the boundary; the same schemas (with the
// response schemas below) make the OpenAPI document. Bodies are strict:
// an unknown key is refused, so a client never believes a field it sent
// (say `respondedAt`) was honoured.

/** `POST /runs`. */
export const startRunBody = z.strictObject({
  agent: z.string().min(1).max(128).describe('The name of a registered agent.'),
  input: z
    .union([
      z.string().min(1).max(100_000),
      z
        .array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string().max(100_000) }))
        .min(1)
        .max(500),
    ])
    .describe('One user message, or a conversation so far (user and assistant turns only).'),
  runId: idSchema.optional().describe('Choose the run id (makes the start idempotent); a random one otherwise.'),
  sessionId: idSchema
    .optional()
    .describe('The session (a conversation) the run belongs to; list its approvals with GET /approvals?sessionId=.'),
  requestedBy: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Who asked for the run; a quorum that excludes the requester refuses their vote.'),
});

/** An answer as JSON: a value per field; its fit to the form is the runtime's check (`answerIssues`), not the schema's. */
const answerSchema = z.record(
  z.string().max(64),
  z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(100)]),
);

const decisionFields = {
  approved: z.boolean(),
  reason: z.string().max(4000).optional(),
  approvedBy: z.string().min(1).max(256).optional().describe('Who decided, as your system knows them.'),
  args: z.unknown().optional().describe('Approve with edited arguments; validated against the tool input schema.'),
  scope: scopeSchema
    .optional()
    .describe(
      "'run' approves this tool for the rest of the run; 'session' decides it for every run of the run's session; 'agent' for every run of the agent (needs grant.ttlMs). Session and agent decisions (approvals or denials) become grants.",
    ),
  grant: grantBoundsSchema
    .optional()
    .describe(
      "Bounds of a 'session' or 'agent' decision: ttlMs, uses (calls it may decide), argsMatch (dotted argument path to a glob or exact JSON value).",
    ),
  signature: z
    .string()
    .max(512)
    .optional()
    .describe('Echo of the request signature, when the agent signs its requests.'),
  dismissed: z
    .boolean()
    .optional()
    .describe(
      "With approved: false, the request was closed without a decision (a dismissed dialog): recorded with source 'dismissed', not as a denial.",
    ),
  answer: answerSchema
    .optional()
    .describe(
      'The answer to a question request (one with `question`), with approved: true: a value per field of its form. Checked against the form: one that does not fit is refused with 422 invalid_answer and its `issues`, and nothing is recorded. Deny to decline.',
    ),
};

/**
 * The target a write names in its body, compared with the URL: required when the request is signed the
 * Standard Webhooks way (the signature covers the body, not the path), optional with a bearer token.
 */
const targetRun = {
  runId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      'The run of the URL. Required in a Standard-Webhooks-signed body (the signature covers the body, not the path); checked against the URL.',
    ),
};
const targetApproval = {
  approvalId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('The approval of the URL. Required in a Standard-Webhooks-signed body; checked against the URL.'),
};

/** `POST /runs/:runId/approvals/:approvalId`. The server's clock dates the decision: there is no `respondedAt`. */
export const decisionBody = z.strictObject({ ...targetRun, ...targetApproval, ...decisionFields });

/** One item of a batch `decisions` list. */
export const batchDecision = z.strictObject({ approvalId: z.string().min(1).max(256), ...decisionFields });

/** `POST /runs/:runId/approvals`. */
const blanketFields = {
  ...targetRun,
  approvedBy: z.string().min(1).max(256),
  reason: z.string().max(4000).optional(),
  signatures: z
    .array(z.string().min(1).max(512))
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Echoes of the request signatures to decide. Required when the agent signs its requests (decisionSecret): only the requests echoed here are decided.',
    ),
};

/** `POST /runs/:runId/approvals`. */
export const batchBody = z.union([
  z.strictObject({ approveAll: z.literal(true), ...blanketFields }),
  z.strictObject({ denyAll: z.literal(true), ...blanketFields }),
  z.strictObject({ ...targetRun, decisions: z.array(batchDecision).min(1).max(100) }),
]);

/** `POST /runs/:runId/cancel` (an empty body is fine with a bearer token; a signed one names its `runId`). */
export const cancelBody = z.strictObject({ ...targetRun, reason: z.string().max(1000).optional() });

/** `GET /approvals` query. */
export const pendingQuery = z.object({
  status: z.literal('pending').default('pending').describe('Only pending approvals are listed.'),
  agent: z.string().min(1).max(128).optional(),
  sessionId: idSchema.optional().describe("Only the approvals of this session's runs."),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(1024).optional(),
});

/** `GET /grants` query. */
export const grantsQuery = z.object({
  sessionId: idSchema.optional().describe("Only this session's grants."),
  agent: z.string().min(1).max(128).optional().describe("Only this agent's grants."),
});

/** `DELETE /grants/:grantId`: a signed body names the grant (the signature covers the body, not the path). */
export const revokeGrantBody = z.strictObject({
  grantId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('The grant of the URL; required in a Standard-Webhooks-signed body.'),
});

/** `DELETE /sessions/:sessionId/grants`: a signed body names the session. */
export const clearSessionBody = z.strictObject({
  sessionId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('The session of the URL; required in a Standard-Webhooks-signed body.'),
});

/** `GET /events` query. */
export const eventsQuery = z.object({
  agent: z.string().min(1).max(128).optional(),
  runId: z.string().min(1).max(256).optional(),
});

// Response schemas: documentation only (the server builds these values itself).

export const approvalRequestSchema = requestSchema.extend({
  args: z.unknown().describe('Display copy of the arguments: secrets redacted, invisible characters escaped.'),
});

const runStatus = z.enum(['running', 'awaitingApproval', 'completed', 'failed', 'cancelled']);

export const runViewSchema = z.object({
  runId: z.string(),
  agentName: z.string(),
  sessionId: z.string().optional(),
  status: runStatus,
  stopReason: z.enum(['completed', 'awaiting_approval', 'max_turns', 'error', 'cancelled']).optional(),
  pendingApprovals: z.array(approvalRequestSchema),
  audit: z.array(auditSchema),
  output: z.string().optional(),
  error: runErrorSchema
    .describe('Why the run failed or was cancelled; on a cancel, `interrupted` names the tool calls that were running.')
    .optional(),
  version: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const runAnswerSchema = z.object({ status: runStatus, run: runViewSchema });

export const grantSchema = z.object({
  id: z.string(),
  scope: z.enum(['session', 'agent']),
  agentName: z.string(),
  sessionId: z.string().optional(),
  toolName: z.string(),
  decision: z.enum(['approved', 'denied']),
  grantedBy: z.string().optional(),
  grantedAt: z.number(),
  expiresAt: z.number().optional(),
  uses: z.number().optional(),
  used: z.number(),
  argsMatch: z.record(z.string(), z.unknown()).optional(),
  approvalId: z.string(),
  runId: z.string(),
  ruleId: z.string().optional(),
  approvers: z.array(z.string()).optional(),
  delegatedBy: z.array(z.string()).optional(),
  signature: z.string().optional(),
});
export const grantsAnswerSchema = z.object({ grants: z.array(grantSchema) });
export const revokedAnswerSchema = z.object({
  revoked: z.number().describe('How many grants were revoked (0 when none was live).'),
});
/** On a request several people must approve, where the votes stand after this one (`RespondResult.vote`). */
const voteAnswerSchema = z
  .object({
    recorded: z.boolean().describe('False for a repeat of your own vote: nothing new was counted.'),
    approvals: z.number(),
    required: z.number(),
    remaining: z.number().describe('How many more approvals are needed; 0 once the request is settled.'),
  })
  .describe('Present when the request needs several approvals: the response was a vote, not the final decision.');
export const decisionAnswerSchema = z.object({
  status: runStatus,
  duplicate: z.boolean(),
  run: runViewSchema,
  vote: voteAnswerSchema.optional(),
});
export const acceptedAnswerSchema = z.object({
  status: z.literal('running'),
  accepted: z.literal(true),
  runId: z.string(),
  duplicate: z.boolean().optional(),
  vote: voteAnswerSchema.optional(),
});
export const batchAnswerSchema = z.object({
  status: runStatus,
  run: runViewSchema.optional(),
  accepted: z.boolean().optional(),
  results: z.array(
    z.object({
      approvalId: z.string(),
      ok: z.boolean(),
      duplicate: z.boolean().optional(),
      vote: voteAnswerSchema.optional(),
      problem: z.object({ status: z.number(), code: z.string(), detail: z.string() }).loose().optional(),
    }),
  ),
});
export const pendingPageSchema = z.object({
  items: z.array(
    z.object({
      runId: z.string(),
      agentName: z.string(),
      sessionId: z.string().optional(),
      request: approvalRequestSchema,
    }),
  ),
  cursor: z.string().optional(),
});
export const connectorsAnswerSchema = z.object({
  connectors: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['connected', 'connecting', 'disconnected', 'failed']).describe('`failed`: reconnecting gave up.'),
      agents: z.array(z.string()).describe('Agents with at least one tool on this connector.'),
    }),
  ),
});
export const problemSchema = z
  .object({ type: z.string(), title: z.string(), status: z.number(), code: z.string(), detail: z.string() })
  .loose()
  .describe('RFC 9457 problem details; `code` is stable.');
