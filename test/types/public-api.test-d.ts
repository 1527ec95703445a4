// Type tests of the public API's main generics: what a user's editor infers, and what it refuses to compile.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  hasPendingApprovals,
  isLinkedRuntime,
  withApprovalResponse,
  type AgentSnapshot,
  type ApprovalLinkTokens,
  type ApprovalResponse,
  type DecisionKind,
  type DecisionScope,
  type GrantBounds,
  type LinkedRuntime,
  type LinkRespondResult,
  type Runtime,
  type Tool,
} from 'countersign';
import { createDiscordNotifier } from 'countersign/discord';
import { createSlackNotifier } from 'countersign/slack';
import { createTelegramNotifier } from 'countersign/telegram';
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

  it("types execute's input as what the schema parses to: defaults filled, transforms applied, optionals optional", () => {
    const input = z.object({
      path: z.string(),
      mode: z.enum(['move', 'copy']).default('move'),
      bytes: z.string().transform((text) => Number(text)),
      recursive: z.boolean().optional(),
      tags: z.array(z.string()),
    });
    const tool = defineTool({
      name: 'copy_file',
      description: 'Copy or move a file',
      input,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<z.output<typeof input>>();
        expectTypeOf(args.mode).toEqualTypeOf<'move' | 'copy'>();
        expectTypeOf(args.bytes).toEqualTypeOf<number>();
        expectTypeOf(args.recursive).toEqualTypeOf<boolean | undefined>();
        expectTypeOf(args.tags).toEqualTypeOf<string[]>();
        // @ts-expect-error the schema has no field "target"
        void args.target;
        // @ts-expect-error bytes is a number once parsed, not the string the model sent
        args.bytes.toUpperCase();
        return args.path;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<Tool<z.output<typeof input>>>();
  });

  it('refuses an execute that wants other input than the schema gives', () => {
    defineTool({
      name: 'd',
      description: 'd',
      // @ts-expect-error the schema parses path to a string, and execute says it wants a number
      input: z.object({ path: z.string() }),
      execute: (args: { path: number }) => args.path,
    });
  });

  it('takes a fixed { required, reason } and refuses other shapes', () => {
    defineTool({
      name: 'a',
      description: 'd',
      input: z.object({}),
      needsApproval: { required: true, reason: 'always' },
      execute: () => 1,
    });
    defineTool({
      name: 'b',
      description: 'd',
      input: z.object({}),
      // @ts-expect-error required must be a boolean
      needsApproval: { required: 'yes' },
      execute: () => 1,
    });
    defineTool({
      name: 'c',
      description: 'd',
      input: z.object({ path: z.string() }),
      // @ts-expect-error the input has no field "nope"
      approvalPrompt: (input) => input.nope,
      execute: () => 1,
    });
  });
});

describe('decisions', () => {
  it('takes the six kinds on a tool and a rule, refuses others, and leaves a token out for a kind not offered', () => {
    expectTypeOf<DecisionKind>().toEqualTypeOf<'approve' | 'edit' | 'deny' | 'run' | 'session' | 'agent'>();
    defineTool({ name: 'a', description: 'd', input: z.object({}), decisions: ['approve', 'deny'], execute: () => 1 });
    // @ts-expect-error 'maybe' is no decision kind
    defineTool({ name: 'b', description: 'd', input: z.object({}), decisions: ['maybe'], execute: () => 1 });
    createAgent({
      name: 'ops',
      model: createScriptedModel([]),
      tools: [],
      policy: { rules: [{ tool: 'b', action: 'ask', decisions: ['approve'] }] },
    });
    expectTypeOf<ApprovalLinkTokens['approveForRun']>().toEqualTypeOf<string | undefined>();
  });
});

describe('ApprovalResponse', () => {
  it('takes the four scopes and grant bounds, and nothing else', () => {
    expectTypeOf<ApprovalResponse['scope']>().toEqualTypeOf<'once' | 'run' | 'session' | 'agent' | undefined>();
    const session: ApprovalResponse = {
      approvalId: 'apr_1',
      approved: true,
      scope: 'session',
      grant: { ttlMs: 60_000, uses: 3, argsMatch: { path: '/tmp/*' } },
    };
    expectTypeOf(session.grant?.uses).toEqualTypeOf<number | undefined>();
    // @ts-expect-error no such scope
    const forever: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'forever' };
    const predicate: ApprovalResponse = {
      approvalId: 'apr_1',
      approved: true,
      scope: 'session',
      // @ts-expect-error argsMatch is data, not a predicate
      grant: { argsMatch: (args: unknown) => Boolean(args) },
    };
    void [forever, predicate];
  });

  it('needs only approvalId and approved for scope once or run, and takes grant bounds for session and agent', () => {
    const once: ApprovalResponse = { approvalId: 'apr_1', approved: false, reason: 'not today' };
    const run: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'run', approvedBy: 'alice' };
    const session: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'session', grant: { uses: 1 } };
    // scope 'agent' also needs grant.ttlMs: that is checked when the decision is applied (a ConfigError naming the
    // fix), since callers pass scope as a DecisionScope read from a request body or a command line.
    const agentWide: ApprovalResponse = {
      approvalId: 'apr_1',
      approved: true,
      scope: 'agent',
      grant: { ttlMs: 3_600_000 },
    };
    const edit: ApprovalResponse = { approvalId: 'apr_1', approved: true, args: { path: '/tmp/b' } };
    const dismissed: ApprovalResponse = { approvalId: 'apr_1', approved: false, dismissed: true };
    expectTypeOf<NonNullable<ApprovalResponse['scope']>>().toEqualTypeOf<DecisionScope>();
    expectTypeOf<NonNullable<ApprovalResponse['grant']>>().toEqualTypeOf<GrantBounds>();
    expectTypeOf<GrantBounds['ttlMs']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error approved is required: a decision says yes or no
    const undecided: ApprovalResponse = { approvalId: 'apr_1', scope: 'run' };
    // @ts-expect-error ttlMs is milliseconds, not a duration string
    const hour: ApprovalResponse = { approvalId: 'apr_1', approved: true, scope: 'agent', grant: { ttlMs: '1h' } };
    const dated: ApprovalResponse = {
      approvalId: 'apr_1',
      approved: true,
      scope: 'session',
      // @ts-expect-error argsMatch values are JSON: a Date is not
      grant: { argsMatch: { after: new Date() } },
    };
    void [once, run, session, agentWide, edit, dismissed, undecided, hour, dated];
  });

  it('is applied by withApprovalResponse with or without { agent }, returning a snapshot', () => {
    expectTypeOf(withApprovalResponse).parameters.toEqualTypeOf<
      [AgentSnapshot, ApprovalResponse, ({ readonly agent?: ReturnType<typeof createAgent> } | undefined)?]
    >();
    expectTypeOf(withApprovalResponse).returns.toEqualTypeOf<AgentSnapshot>();
    expectTypeOf(hasPendingApprovals).returns.toEqualTypeOf<boolean>();
  });
});

describe('createRuntime says by its type whether it mints links', () => {
  const agent = createAgent({ name: 'ops', model: createScriptedModel([]), tools: [] });

  it('is a LinkedRuntime with links, a plain Runtime without', () => {
    const linked = createRuntime({
      agents: [agent],
      store: createMemoryStore(),
      links: { secret: 'link-secret-0123456789abcdef' },
    });
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
    // @ts-expect-error so does a Telegram card
    createTelegramNotifier({ runtime: plain, botToken: '123:abc', chatId: 1 });
    // @ts-expect-error and a Discord one
    createDiscordNotifier({ runtime: plain, botToken: 'bot', channelId: '1' });
  });

  it('is a Runtime too, and isLinkedRuntime narrows a Runtime to one', () => {
    expectTypeOf<LinkedRuntime>().toExtend<Runtime>();
    expectTypeOf<Runtime>().not.toExtend<LinkedRuntime>();
    expectTypeOf<LinkedRuntime['respondWithLink']>().returns.resolves.toEqualTypeOf<LinkRespondResult>();
    expectTypeOf<ApprovalLinkTokens['wider']>().toEqualTypeOf<'run' | 'session'>();
    const some: Runtime = createRuntime({ agents: [agent], links: { secret: 'link-secret-0123456789abcdef' } });
    if (isLinkedRuntime(some)) expectTypeOf(some).toEqualTypeOf<LinkedRuntime>();
  });
});
