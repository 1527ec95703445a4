// How a run starts: the caller's input checked (one message or a history), and the new run's first snapshot.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseOptions } from '../options.js';
import type { Agent } from './agent.js';
import type { AgentEvent } from './agent-machine.js';
import { findShapeProblem, MAX_JSON_DEPTH } from './argument-shape.js';
import { messageSchema } from './message-schema.js';
import { originSchema } from './origin-schema.js';
import { initialSnapshot, step } from './step.js';
import type { AgentSnapshot, Message, RunOrigin } from './types.js';

/** What starts a run: one user message, or a conversation so far. */
export interface ExecuteInput {
  readonly input: string | readonly Message[];
  /** Choose the run id (for example your own request id); a random one otherwise. */
  readonly runId?: string;
  /** Where the run came from (a chat, a channel), so channels send its approvals back there. */
  readonly origin?: RunOrigin;
}

// A history handed in is the caller's own, not the model's: a call nested too deep there is refused outright (nothing could store the run).
const historySchema = z
  .array(messageSchema)
  .min(1, 'has no messages')
  .refine(
    (messages) => messages.every((message) => (message.toolCalls ?? []).every((call) => findShapeProblem(call.args, { allowForbiddenKeys: true }) === undefined)),
    `has tool call arguments nested deeper than ${MAX_JSON_DEPTH} levels; pass shallower arguments`,
  );
const inputSchema = z.object({
  input: z.union([z.string().min(1, 'is empty; pass the user message'), historySchema]),
  runId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-", "." or ":"')
    .optional(),
  origin: originSchema.optional(),
});

export function newRun(agent: Agent, input: ExecuteInput): { snapshot: AgentSnapshot; event: AgentEvent } {
  parseOptions(inputSchema, input, 'execute', { subject: 'argument', hint: "Pass { input: 'a user message' }, { input: messages } or a snapshot to resume." });
  const now = agent.settings.clock();
  const given: Message[] = typeof input.input === 'string' ? [{ role: 'user', content: input.input }] : [...(input.input as Message[])];
  const instructions = agent.settings.instructions;
  const messages = instructions && given[0]?.role !== 'system' ? [{ role: 'system' as const, content: instructions }, ...given] : given;
  const snapshot = initialSnapshot({
    runId: input.runId ?? `run_${randomUUID()}`,
    agentName: agent.name,
    messages: [],
    pendingApprovals: [],
    toolCalls: [],
    audit: [],
    runApprovals: [],
    turns: 0,
    maxTurns: agent.settings.maxTurns,
    ...(input.origin === undefined ? {} : { origin: { ...input.origin } }),
    version: 0,
    createdAt: now,
    updatedAt: now,
  });
  return { snapshot, event: { type: 'START', at: now, messages } };
}

/** A new run after its start step, before any effect: what `runtime.start` records before the run goes on. */
export function startedRun(agent: Agent, input: ExecuteInput): AgentSnapshot {
  const { snapshot, event } = newRun(agent, input);
  return step(snapshot, event);
}
