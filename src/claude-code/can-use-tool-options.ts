// The options of `canUseTool`, checked once when the callback is made: a mistake is a `ConfigError` naming the option.
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { functionSchema, idSchema, optionsObject, parseOptions } from '../kit/index.js';

/**
 * Options of `canUseTool`.
 *
 * @example
 * const options: CanUseToolOptions = { sessionId: 'refactor-42', deadlineMs: 30_000, approvers: ['alice'] };
 */
export interface CanUseToolOptions {
  /** The session the calls belong to: its grants cover them ("allow `npm test` for this session"), its requests list together. */
  readonly sessionId: string;
  /**
   * How long one call waits for a decision before it answers that a person was asked (and the model should make the
   * same call again later). Default 50,000 ms, under the roughly 60 seconds Claude Code gives a permission callback
   * in some releases before it gives up on it.
   */
  readonly deadlineMs?: number;
  /** How long each request waits for a person (within the request policy's `approvalTtlMs`). Default: the policy's. */
  readonly expiresInMs?: number;
  /** Who may decide, within whom the request policy admits. */
  readonly approvers?: readonly string[];
  /** How many people must approve, at least what the policy asks. */
  readonly approvals?: number;
  /** Who asks (a quorum refuses their own vote). */
  readonly requestedBy?: string;
  /** Why it is asked, shown to the person (e.g. the task the agent works on). */
  readonly reason?: string;
  /** Answers Claude's clarifying questions (the `AskUserQuestion` tool); without it they are asked about like any call. */
  readonly onQuestion?: CanUseTool;
}

const schema = optionsObject({
  sessionId: idSchema,
  deadlineMs: z.number().int().min(1000).max(3_600_000).optional(),
  expiresInMs: z.number().int().min(1000).optional(),
  approvers: z.array(z.string().min(1)).min(1).optional(),
  approvals: z.number().int().min(1).optional(),
  requestedBy: z.string().min(1).optional(),
  reason: z.string().max(4000).optional(),
  onQuestion: functionSchema().optional(),
});

/** The options, checked, with their defaults, and the part every request of the callback asks with. */
export function readCanUseToolOptions(options: CanUseToolOptions) {
  parseOptions(schema, options, 'canUseTool', {
    hint: "Pass { sessionId }, e.g. canUseTool(runtime, { sessionId: 'task-1' }).",
  });
  const { sessionId, deadlineMs = 50_000, onQuestion, ...ask } = options;
  return { sessionId, deadlineMs, onQuestion, expiresInMs: ask.expiresInMs, ask: { ...ask, sessionId } };
}
