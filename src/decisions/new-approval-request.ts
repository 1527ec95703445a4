// What withApprovalRequest takes: the request an external system adds, its options, and their checks at the boundary.
import { z } from 'zod';
import { agentOption } from '../agent/create-agent.js';
import type { Agent } from '../agent/agent-types.js';
import { personNameSchema } from './authority/person-name.js';
import { idSchema } from '../run/run-identity.js';
import { decisionsSchema } from '../run/decision-kinds.js';
import type { DecisionKind, Quorum } from '../run/types.js';
import { optionsObject } from '../options.js';

/**
 * A request to add to a waiting run (`withApprovalRequest`): the call a person is asked to approve, and optionally
 * what they are told and who may decide.
 *
 * @example
 * const request: NewApprovalRequest = {
 *   toolCallId: 'billing_refund_8812',
 *   toolName: 'refund',
 *   args: { orderId: '8812', amount: 40 },
 *   reason: 'Billing flagged a double charge',
 *   approvers: ['finance-lead'],
 * };
 */
export interface NewApprovalRequest {
  /** The call's id: unique in the run (it is also the tool's idempotency key, `${runId}:${toolCallId}`). */
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call's arguments: a plain JSON object, checked against the tool's input schema when the agent is given. */
  readonly args: { readonly [key: string]: unknown };
  /** Default: a fresh `apr_…` id. */
  readonly approvalId?: string;
  /** What the person reads; default: the tool's `approvalPrompt` for these arguments, else its description. */
  readonly description?: string;
  /** Why it is asked (shown to the person). */
  readonly reason?: string;
  /**
   * Epoch ms after which it can no longer be approved (what then happens is the agent's `onExpire`); default, and
   * latest: the tool's or the agent's `approvalTtlMs` from now, when one is set.
   */
  readonly expiresAt?: number;
  /** Who may decide; within the tool's own approver list when it names one. */
  readonly approvers?: readonly string[];
  /** How many people must approve; at least the tool's own `approvals` when it names them. */
  readonly quorum?: Pick<Quorum, 'required'> & Partial<Omit<Quorum, 'required'>>;
  /** The decisions a person may make on it; within the tool's own `decisions` when it names them. */
  readonly decisions?: readonly DecisionKind[];
}

/**
 * Options of `withApprovalRequest`.
 *
 * @example
 * const options: AddRequestOptions = { agent };
 */
export interface AddRequestOptions {
  /**
   * The agent the run belongs to, as `createAgent` returned it: its tool checks the arguments, gives the display and
   * who may decide, and its `decisionSecret` signs the request. Required for a run signed with a secret.
   */
  readonly agent?: Agent;
}

const quorumSchema = optionsObject({
  required: z.number().int().min(1).max(20),
  from: z.array(personNameSchema).min(1).optional(),
  distinctPeople: z.boolean().optional(),
  excludeRequester: z.boolean().optional(),
  anyDenyDenies: z.boolean().optional(),
});

export const requestSchema = optionsObject({
  toolCallId: idSchema,
  toolName: z.string().min(1, 'names no tool'),
  args: z.record(z.string(), z.unknown(), { error: 'must be an object of the arguments, e.g. { path: "/tmp/x" }' }),
  approvalId: idSchema.optional(),
  description: z.string().min(1).max(4000).optional(),
  reason: z.string().max(4000).optional(),
  expiresAt: z.number().finite().optional(),
  approvers: z
    .array(personNameSchema)
    .min(1, 'is empty; leave it out to let anyone who may decide the tool decide')
    .optional(),
  quorum: quorumSchema.optional(),
  decisions: decisionsSchema.optional(),
});

export const addSchema = optionsObject({ agent: agentOption.optional() });
