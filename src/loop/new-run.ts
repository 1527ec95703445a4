// How a run starts: the caller's input checked (one message or a history), and the new run's first snapshot.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { optionsObject, parseOptions } from '../options.js';
import type { Agent } from '../agent/agent-types.js';
import type { AgentEvent } from '../machine/agent-machine.js';
import { findShapeProblem, MAX_JSON_DEPTH } from '../run/argument-shape.js';
import { checkMessageList } from '../run/check-messages.js';
import { originSchema } from '../run/origin-schema.js';
import { idSchema } from '../run/run-identity.js';
import { initialSnapshot, step } from '../machine/step.js';
import type { Message, RunContext } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { personNameSchema } from '../decisions/authority/person-name.js';
import type { ExecuteInput } from './execute-input.js';
import { traceparentSchema } from '../run/traceparent.js';

// The history itself is checked by checkMessageList, the one check of a history (a snapshot's too).
const inputSchema = optionsObject({
  input: z.union([
    z.string().min(1, 'is empty; pass the user message'),
    z.array(z.unknown()).min(1, 'has no messages'),
  ]),
  runId: idSchema.optional(),
  origin: originSchema.optional(),
  sessionId: idSchema.optional(),
  requestedBy: personNameSchema.optional(),
  traceparent: traceparentSchema.optional(),
});

/** A history handed in is the caller's own: checked like a snapshot's, and a call nested too deep is refused outright (nothing could store the run). */
function checkHistory(messages: unknown): asserts messages is Message[] {
  checkMessageList(messages, 'input', (path, what) => {
    throw new ConfigError(`execute: ${path} ${what}.`);
  });
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) {
      if (findShapeProblem(call.args, { allowForbiddenKeys: true }) !== undefined) {
        throw new ConfigError(
          `execute: input has tool call arguments nested deeper than ${MAX_JSON_DEPTH} levels; pass shallower arguments.`,
        );
      }
    }
  }
}

/** Where a sub-agent's run answers: the parent run and its delegate call (`agentAsTool`). */
export type ParentLink = Pick<RunContext, 'parentRunId' | 'parentToolCallId'>;

export function newRun(
  agent: Agent,
  input: ExecuteInput,
  parent: ParentLink = {},
): { snapshot: AgentSnapshot; event: AgentEvent } {
  const hint = "Pass { input: 'a user message' }, { input: messages } or a snapshot to resume.";
  parseOptions(inputSchema, input, 'execute', { subject: 'argument', hint });
  if (typeof input.input !== 'string') checkHistory(input.input);
  const now = agent.settings.clock();
  const given: Message[] =
    typeof input.input === 'string' ? [{ role: 'user', content: input.input }] : [...(input.input as Message[])];
  const instructions = agent.settings.instructions;
  const messages =
    instructions && given[0]?.role !== 'system'
      ? [{ role: 'system' as const, content: instructions }, ...given]
      : given;
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
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    ...(input.traceparent === undefined ? {} : { traceparent: input.traceparent }),
    ...parent,
    version: 0,
    createdAt: now,
    updatedAt: now,
  });
  return { snapshot, event: { type: 'START', at: now, messages } };
}

/** A new run after its start step, before any effect: what `runtime.start` records before the run goes on. */
export function startedRun(agent: Agent, input: ExecuteInput, parent?: ParentLink): AgentSnapshot {
  const { snapshot, event } = newRun(agent, input, parent);
  return step(snapshot, event);
}
