// The zod schemas of a stored snapshot's head: requests, decision entries, tool call records and the run itself,
// checked by `deserialize` and by every store that reads a head back.
import { z } from 'zod';
import { questionSchema } from './question.js';
import { toolAnnotationsSchema } from './tool-annotations.js';
import { DECISION_KINDS } from './decision-kinds.js';
import { grantBoundsSchema, scopeSchema } from './grant-bounds.js';
import { filePartSchema, jsonSchema, usageSchema } from './message-schema.js';
import { originSchema } from './origin-schema.js';
import { idSchema } from './run-identity.js';

const warningSchema = z.object({
  code: z.enum([
    'bidi-control',
    'zero-width',
    'invisible',
    'escape-lookalike',
    'mixed-script',
    'truncated',
    'connector-disconnected',
  ]),
  path: z.string(),
  message: z.string(),
});

const escalationTargetSchema = z.union([z.array(z.string()), z.object({ channel: z.string() })]);

/** A request's reminders and escalations as stored (`RequestHistory`; the audit keeps it without its signature). */
const historySchema = z.object({
  reminders: z.number(),
  lastRemindedAt: z.number().optional(),
  escalations: z.array(z.object({ at: z.number(), to: escalationTargetSchema })),
});

const quorumSchema = z.object({
  required: z.number().int().positive(),
  from: z.array(z.string()).optional(),
  distinctPeople: z.boolean(),
  excludeRequester: z.boolean(),
  anyDenyDenies: z.boolean(),
});

const voteSchema = z.object({
  by: z.string().optional(),
  approved: z.boolean(),
  at: z.number(),
  reason: z.string().optional(),
  signature: z.string().optional(),
});

/** An `ApprovalRequest` as stored; the HTTP app's OpenAPI document reuses it. */
const delegateStepSchema = z.object({
  agentName: z.string().min(1),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
});

export const requestSchema = z.object({
  approvalId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.unknown(),
  argsDigest: z.string(),
  description: z.string(),
  reason: z.string().optional(),
  requestedAt: z.number(),
  expiresAt: z.number().optional(),
  onExpire: z.enum(['deny', 'keep']).optional(),
  connector: z.string().optional(),
  annotations: toolAnnotationsSchema.optional(),
  warnings: z.array(warningSchema),
  ruleId: z.string().optional(),
  approvers: z.array(z.string()).optional(),
  approverFunction: z.literal(true).optional(),
  oneCallRun: z.literal(true).optional(),
  decisions: z.array(z.enum(DECISION_KINDS)).optional(),
  signature: z.string().optional(),
  outcomeUnknown: z.boolean().optional(),
  remindAfterMs: z.number().optional(),
  escalate: z.array(z.object({ afterMs: z.number(), to: escalationTargetSchema })).optional(),
  history: historySchema.extend({ signature: z.string().optional() }).optional(),
  quorum: quorumSchema.optional(),
  votes: z.array(voteSchema).optional(),
  question: questionSchema.optional(),
  traceparent: z.string().max(256).optional(),
  shadowRuleId: z.string().optional(),
  path: z.array(delegateStepSchema).min(1).optional(),
});

/** An `AuditEntry` as stored. */
export const auditSchema = z.object({
  approvalId: z.string().optional(),
  toolCallId: z.string(),
  toolName: z.string(),
  decision: z.enum(['approved', 'denied']),
  source: z.enum(['human', 'dismissed', 'rule', 'memory', 'grant', 'expiry', 'tool', 'default']),
  scope: scopeSchema,
  at: z.number(),
  by: z.string().optional(),
  reason: z.string().optional(),
  ruleId: z.string().optional(),
  argsDigest: z.string(),
  editedArgsDigest: z.string().optional(),
  grant: grantBoundsSchema.optional(),
  approvers: z.array(z.string()).optional(),
  quorum: quorumSchema.optional(),
  grantId: z.string().optional(),
  claimedAt: z.number().optional(),
  history: historySchema.optional(),
  votes: z.array(voteSchema).optional(),
  signature: z.string().optional(),
  receipt: z.object({ keyId: z.string(), previous: z.string(), signature: z.string() }).optional(),
});

const recordSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'executing', 'succeeded', 'failed', 'expired']),
  approvalId: z.string().optional(),
  editedArgs: z.unknown().optional(),
  result: z.string().optional(),
  resultFiles: z.array(filePartSchema).optional(),
  resultOutput: jsonSchema.optional(),
  lease: z.object({ owner: z.string(), until: z.number() }).optional(),
  attempts: z.number().int().nonnegative(),
  added: z.object({ args: z.unknown() }).optional(),
  traceparent: z.string().max(256).optional(),
  // A sub-agent's run, head and history together (its history is checked as a snapshot's is).
  get child() {
    return childSnapshotSchema.optional();
  },
});

/** A run's `error`: why it failed or was cancelled; on a cancel, `interrupted` names the tool calls that were running. */
export const runErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  interrupted: z.array(z.object({ toolCallId: z.string(), toolName: z.string() })).optional(),
});

export const headSchema = z.object({
  runId: z.string().min(1),
  agentName: z.string().min(1),
  state: z.enum([
    'idle',
    'callingModel',
    'evaluatingTools',
    'executingTools',
    'awaitingApproval',
    'completed',
    'failed',
    'cancelled',
  ]),
  status: z.enum(['running', 'awaitingApproval', 'completed', 'failed', 'cancelled']),
  stopReason: z.enum(['completed', 'awaiting_approval', 'max_turns', 'error', 'cancelled']).optional(),
  pendingApprovals: z.array(requestSchema),
  toolCalls: z.array(recordSchema),
  audit: z.array(auditSchema),
  runApprovals: z.array(z.string()),
  runApprovalsSince: z.number().int().nonnegative().optional(),
  turns: z.number().int().nonnegative(),
  maxTurns: z.number().int().positive(),
  origin: originSchema.optional(),
  sessionId: idSchema.optional(),
  requestedBy: z.string().optional(),
  traceparent: z.string().max(256).optional(),
  get subRuns() {
    return z.array(childSnapshotSchema).optional();
  },
  parentRunId: idSchema.optional(),
  parentToolCallId: z.string().min(1).optional(),
  usage: usageSchema.optional(),
  version: z.number().int().nonnegative(),
  createdAt: z.number(),
  updatedAt: z.number(),
  output: z.string().optional(),
  error: runErrorSchema.optional(),
});

/** A sub-agent's run kept on its delegate call's record: a head with its history (checked by `parseHead`, as a snapshot's is). */
const childSnapshotSchema = headSchema.extend({ messages: z.array(z.unknown()) });
