// Type tests of the public API's main generics: what a user's editor infers, and what it refuses to compile.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  hasPendingApprovals,
  withApprovalResponse,
  type AgentSnapshot,
  type ApprovalLinkTokens,
  type ApprovalResponse,
  type LinkedRuntime,
  type Runtime,
  type Tool,
} from 'countersign';
import { createSlackNotifier } from 'countersign/slack';
import { createScriptedModel } from 'countersign/testing';

describe('defineTool infers its input from the zod schema', () => {
  it('types execute, needsApproval and approvalPrompt with the parsed input', () => {
    const tool = defineTool({
      name: 'transfer',
      description: 'Move money',
      input: z.object({ to: z.string(), cents: z.number().int() }),
      needsApproval: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ to: string; cents: number }>();
        return { required: input.cents > 10_000, reason: 'large transfer' };
      },
      approvalPrompt: (input) => `Send ${input.cents} cents to ${input.to}?`,
      execute: (input, ctx) => {
        expectTypeOf(input.to).toEqualTypeOf<string>();
        expectTypeOf(ctx.idempotencyKey).toEqualTypeOf<string>();
        return { sent: true };
      },
    });
    expectTypeOf(tool).toEqualTypeOf<Tool<{ to: string; cents: number }>>();
  });

  it('takes a fixed { required, reason } and refuses other shapes', () => {
    defineTool({ name: 'a', description: 'd', input: z.object({}), needsApproval: { required: true, reason: 'always' }, execute: () => 1 });
    // @ts-expect-error required must be a boolean
    defineTool({ name: 'b', description: 'd', input: z.object({}), needsApproval: { required: 'yes' }, execute: () => 1 });
    // @ts-expect-error the input has no field "nope"
    defineTool({ name: 'c', description: 'd', input: z.object({ path: z.string() }), approvalPrompt: (input) => input.nope, execute: () => 1 });
  });
});

describe('ApprovalResponse', () => {
  it('takes the four scopes and grant bounds, and nothing else', () => {
    expectTypeOf<ApprovalResponse['scope']>().toEqualTypeOf<'once' | 'run' | 'session' | 'agent' | undefined>();
    const session: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'session', grant: { ttlMs: 60_000, uses: 3, argsMatch: { path: '/tmp/*' } } };
    expectTypeOf(session.grant?.uses).toEqualTypeOf<number | undefined>();
    // @ts-expect-error no such scope
    const forever: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'forever' };
    // @ts-expect-error argsMatch is data, not a predicate
    const predicate: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'session', grant: { argsMatch: (args: unknown) => Boolean(args) } };
    void [forever, predicate];
  });

  it('is applied by withApprovalResponse with or without { agent }, returning a snapshot', () => {
    expectTypeOf(withApprovalResponse).parameters.toEqualTypeOf<[AgentSnapshot, ApprovalResponse, ({ readonly agent?: ReturnType<typeof createAgent> } | undefined)?]>();
    expectTypeOf(withApprovalResponse).returns.toEqualTypeOf<AgentSnapshot>();
    expectTypeOf(hasPendingApprovals).returns.toEqualTypeOf<boolean>();
  });
});

describe('createRuntime says by its type whether it mints links', () => {
  const agent = createAgent({ name: 'ops', model: createScriptedModel([]), tools: [] });

  it('is a LinkedRuntime with links, a plain Runtime without', () => {
    const linked = createRuntime({ agents: [agent], store: createMemoryStore(), links: { secret: 'link-secret-0123456789abcdef' } });
    expectTypeOf(linked).toEqualTypeOf<LinkedRuntime>();
    expectTypeOf(linked.linkTokens).returns.resolves.toEqualTypeOf<ApprovalLinkTokens>();
    const plain = createRuntime({ agents: [agent] });
    expectTypeOf(plain).toEqualTypeOf<Runtime>();
    // @ts-expect-error a runtime without links mints no tokens
    void plain.linkTokens;
  });

  it('makes a channel of a runtime without links a compile error, not a failure at the first approval', () => {
    const plain = createRuntime({ agents: [agent] });
    // @ts-expect-error a Slack card needs one-click tokens, so the runtime must have links
    createSlackNotifier({ runtime: plain, token: 'xoxb-1', channel: 'C1' });
  });
});
