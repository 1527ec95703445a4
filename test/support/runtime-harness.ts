// Agents for runtime tests: a gated tool whose executions are counted, driven by a scripted model.
import { z } from 'zod';
import {
  defineTool,
  type Agent,
  type DecisionKind,
  type Notifier,
  type QuorumOptions,
  type RunEvent,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from './test-kit.js';

export interface CountingAgent {
  readonly agent: Agent;
  /** Idempotency keys of every execution, in order. */
  readonly executions: string[];
  /** Model calls made so far. */
  modelCalls(): number;
}

export interface CountingAgentOptions {
  /** Calls per assistant turn (each needs approval). Default 1. */
  readonly calls?: number;
  readonly clock?: () => number;
  readonly approvalTtlMs?: number;
  readonly idempotent?: boolean;
  /** Runs before the tool returns; a never-settling promise simulates a process that dies mid-call. */
  readonly during?: (key: string) => Promise<void> | void;
  readonly leaseMs?: number;
  readonly name?: string;
  /** Several people must approve each call. */
  readonly approvals?: QuorumOptions;
  readonly decisionSecret?: string;
  /** The decisions a person may make on its calls. */
  readonly decisions?: readonly DecisionKind[];
}

/** An agent whose model asks for `calls` `send_payment` calls, then answers `paid` once results are in. */
export function countingAgent(options: CountingAgentOptions = {}): CountingAgent {
  const executions: string[] = [];
  const tool = defineTool({
    name: 'send_payment',
    description: 'Send a payment',
    input: z.object({ to: z.string(), cents: z.number().int() }),
    ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    ...(options.decisions === undefined ? {} : { decisions: options.decisions }),
    execute: async ({ to }, ctx) => {
      await options.during?.(ctx.idempotencyKey);
      executions.push(ctx.idempotencyKey);
      return `paid ${to}`;
    },
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('paid')
      : toolCallTurn(
          Array.from({ length: options.calls ?? 1 }, (_, index) => ({
            name: 'send_payment',
            args: { to: `acct-${index}`, cents: 100 + index },
          })),
        ),
  );
  const agent = testAgent({
    ...(options.name === undefined ? {} : { name: options.name }),
    model,
    tools: [tool],
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.decisionSecret === undefined ? {} : { decisionSecret: options.decisionSecret }),
  });
  return { agent, executions, modelCalls: () => model.calls.length };
}

/** A notifier that keeps every event it is told, in order. */
export function recordingNotifier(): Notifier & { readonly events: RunEvent[] } {
  const events: RunEvent[] = [];
  return {
    events,
    async publish(batch) {
      events.push(...batch);
    },
  };
}
