// A runtime with personal tokens and an app in front of it: a gated `delete_file` tool (approvers and a quorum on
// demand), the shared bearer token for service calls, and helpers to decide and sign in.
import { z } from 'zod';
import {
  createAgent,
  createMemoryPersonTokenStore,
  createRuntime,
  defineTool,
  type PersonTokenStore,
  type QuorumOptions,
  type Runtime,
} from 'countersign';
import { createApprovalApp, type ApprovalAppOptions } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testClock, type TestClock } from '../support/test-kit.js';

export const SHARED = 'shared-service-token-0123456789';
export const DECISION_SECRET = 'person-token-decision-secret-0123456789';

export interface PersonWorld {
  readonly runtime: Runtime;
  readonly app: ReturnType<typeof createApprovalApp>;
  readonly clock: TestClock;
  readonly executed: string[];
  /** A run paused on one `delete_file` call: its ids and the request's signature. */
  paused(): Promise<{ runId: string; approvalId: string; signature: string }>;
  decide(
    token: string,
    target: { runId: string; approvalId: string; signature: string },
    body?: Record<string, unknown>,
  ): Promise<Response>;
}

export function personWorld(
  options: {
    approvers?: string[];
    approvals?: QuorumOptions;
    app?: ApprovalAppOptions;
    tokens?: PersonTokenStore;
  } = {},
): PersonWorld {
  const clock = testClock();
  const executed: string[] = [];
  const tool = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    execute: ({ path }) => {
      executed.push(path);
      return `deleted ${path}`;
    },
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('delete_file', { path: '/tmp/x' }),
  );
  const agent = createAgent({ name: 'files', model, tools: [tool], decisionSecret: DECISION_SECRET, clock });
  const runtime = createRuntime({
    agents: [agent],
    clock,
    personTokens: options.tokens ?? createMemoryPersonTokenStore(),
  });
  const app = createApprovalApp(runtime, { bearerToken: SHARED, clock, ...options.app });
  return {
    runtime,
    app,
    clock,
    executed,
    async paused() {
      const run = await runtime.start('files', { input: 'delete it' });
      const request = run.pendingApprovals[0]!;
      return { runId: run.runId, approvalId: request.approvalId, signature: request.signature! };
    },
    decide: async (token, target, body = {}) =>
      app.request(`/runs/${target.runId}/approvals/${target.approvalId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ approved: true, signature: target.signature, ...body }),
      }),
  };
}
