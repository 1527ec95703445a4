// The contract every approval channel passes (webhook, Slack, Telegram, email, Discord): delivery order,
// retries (with the service's Retry-After), one card per approval however often its event is delivered,
// the card updated when the approval is decided elsewhere and when the call finishes, the shared refusal
// wording, escaping of what the model wrote, and no secret in any reported error. A channel's test file
// implements ChannelHarness against a fake of its service on loopback and calls channelContract(harness).
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentAsTool,
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  type DecisionKind,
  type LinkedRuntime,
  type Notifier,
  type QuorumOptions,
  type RunEvent,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export const CONTRACT_LINK_SECRET = 'contract-link-secret-0123456789abcdef';

/** What the model wrote into the request: mentions and markup of every channel, which must reach a person as plain text. */
export const HOSTILE_TEXT = 'Deploy <!channel> @everyone <@U123> <b>bold</b> *star* & `tick`';

/** What the fake service of a channel was asked to do, in order. */
export interface Delivery {
  /** `post`: a card asking for a decision; `update`: a card edited, or a line about it posted. */
  readonly kind: 'post' | 'update';
  /** What a person reads, after the channel's markup is rendered (escapes decoded, tags dropped). */
  readonly visible: string;
  /** Mentions or markup that would be active in what was sent and did not come from the channel itself. */
  readonly active: readonly string[];
}

/** How the fake service answers the next posts: a status (and Retry-After seconds) per request, then success. */
export type FaultPlan = readonly { readonly status: number; readonly retryAfterSeconds?: number }[];

export interface ChannelFixture {
  /** The channel's notifier, subscribed to nothing: the contract publishes to it. */
  readonly notifier: Notifier & { flush(): Promise<void> };
  /** Makes another notifier of the same channel on the same runtime (another process of the app). */
  another(): Notifier & { flush(): Promise<void> };
  /** Everything the fake service was asked to do, in order. */
  deliveries(): readonly Delivery[];
  /** Waits the notifier asked for between tries, in milliseconds. */
  readonly sleeps: readonly number[];
  /** What the notifier reported to onError. */
  readonly errors: readonly unknown[];
  /**
   * Clicks a button of the `index`th posted card as `user` (a channel user id) and resolves with what the clicker was
   * told. Absent for a channel without buttons (webhooks).
   */
  click?(index: number, button: 'approve' | 'wider' | 'deny', user: string): Promise<string>;
  /** The labels of the decision buttons (or links) of the `index`th posted card, in order. */
  buttons?(index: number): readonly string[];
  /** How a decider named `user` in this channel is recorded (`slack:U1`). */
  readonly decider?: (user: string) => string;
  /**
   * Answers the one-field question of the `index`th posted card as `user` with `value` (an option as picked, or text
   * as typed; an option the form does not offer is sent as a forged pick), through the channel's own form: a modal, a
   * button per option, a reply, the link page. Resolves with what the form showed (its visible text) and what the
   * person was told after it. Absent for a channel that takes no answers (webhooks; Slack without a bot token).
   */
  answer?(index: number, value: string, user: string): Promise<{ readonly form: string; readonly told: string }>;
  close(): Promise<void>;
}

export interface ChannelHarness {
  readonly name: string;
  /** Secrets of the channel's configuration that must never appear in a reported error. */
  readonly secrets: readonly string[];
  /** Makes the channel for `runtime`, its fake service answering per `faults` first. */
  setup(
    runtime: LinkedRuntime,
    options: { readonly faults?: FaultPlan; readonly echoSecretsInErrors?: boolean },
  ): Promise<ChannelFixture>;
}

interface World {
  readonly runtime: LinkedRuntime;
  readonly events: RunEvent[];
  readonly executed: string[];
}

/** What the deploy tool says about itself in `world({ claims: true })`, and the connector it goes through, down. */
const CLAIMS = {
  annotations: { title: 'Deploy <to> production', destructiveHint: true, openWorldHint: true },
  connector: 'ci-server',
  connectorStatus: () => 'disconnected' as const,
};

function world(
  options: {
    readonly calls?: number;
    readonly approvers?: string[];
    readonly stream?: boolean;
    readonly claims?: boolean;
    readonly approvals?: QuorumOptions;
    readonly oneCallPerRun?: boolean;
    readonly decisions?: readonly DecisionKind[];
    /** Put the deploy tool on a sub-agent, `deployer`, that `ops` delegates to (`agentAsTool`). */
    readonly nested?: boolean;
  } = {},
): World {
  const executed: string[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service',
    input: z.object({ target: z.string(), note: z.string() }),
    needsApproval: true,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.decisions ? { decisions: options.decisions } : {}),
    ...(options.claims ? CLAIMS : {}),
    approvalPrompt: () => HOSTILE_TEXT,
    execute: async ({ target }) => {
      executed.push(target);
      return `deployed ${target}`;
    },
  });
  const model = createScriptedModel(
    ({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('done')
        : toolCallTurn(
            Array.from({ length: options.calls ?? 1 }, (_, index) => ({
              name: 'deploy',
              args: { target: `svc-${index}`, note: HOSTILE_TEXT },
            })),
          ),
    { stream: options.stream ?? false },
  );
  const deployer = createAgent({ name: 'deployer', model, tools: [deploy] });
  const lead = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('deployer', { task: 'ship it' }),
  );
  const runtime = createRuntime({
    agents: [
      options.nested
        ? createAgent({ name: 'ops', model: lead, tools: [agentAsTool(deployer)] })
        : createAgent({
            name: 'ops',
            model,
            tools: [deploy],
            ...(options.oneCallPerRun ? { oneCallPerRun: true } : {}),
          }),
    ],
    store: createMemoryStore(),
    links: { secret: CONTRACT_LINK_SECRET },
  });
  const events: RunEvent[] = [];
  runtime.subscribe((event) => void events.push(event));
  return { runtime, events, executed };
}

/** A runtime asked questions (`requestInput`) with one field each: one of two regions, or a name of up to 40 characters. */
function questionWorld() {
  const runtime = createRuntime({ store: createMemoryStore(), links: { secret: CONTRACT_LINK_SECRET } });
  const events: RunEvent[] = [];
  runtime.subscribe((event) => void events.push(event));
  const forms = {
    region: z.object({ region: z.enum(['eu-west-1', 'us-east-1']).meta({ title: 'Region' }) }),
    name: z.object({ name: z.string().max(40).meta({ title: 'Cluster name' }) }),
  };
  return {
    runtime,
    events,
    ask: (form: keyof typeof forms) => runtime.requestInput({ question: QUESTION, answer: forms[form] }),
  };
}

/** The question the contract asks, with markup every channel must show as plain text. */
export const QUESTION = 'Which <b>region</b> should *blue* run in? @everyone';

export function channelContract(harness: ChannelHarness): void {
  questionContract(harness);
  describe(`the channel contract: ${harness.name}`, () => {
    const open: ChannelFixture[] = [];
    const setup = async (runtime: LinkedRuntime, options: Parameters<ChannelHarness['setup']>[1] = {}) => {
      const fixture = await harness.setup(runtime, options);
      open.push(fixture);
      return fixture;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((fixture) => fixture.close()));
    });

    it('posts one card per approval, in the order they were asked, each showing what the model wrote as plain text', async () => {
      const w = world({ calls: 3 });
      const fixture = await setup(w.runtime);
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      const posts = fixture.deliveries().filter((delivery) => delivery.kind === 'post');
      expect(posts).toHaveLength(3);
      expect(posts.map((post) => /svc-\d/.exec(post.visible)?.[0])).toEqual(['svc-0', 'svc-1', 'svc-2']);
      for (const post of posts) {
        expect(post.visible).toContain('deploy');
        expect(post.visible).toContain(HOSTILE_TEXT);
        expect(post.active).toEqual([]);
      }
      expect(run.pendingApprovals).toHaveLength(3);
    });

    it("shows the tool's title and badges as its own claims (destructive as a warning) and the warning that its connector is down", async () => {
      const w = world({ claims: true });
      const fixture = await setup(w.runtime);
      await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      const [post] = fixture.deliveries().filter((delivery) => delivery.kind === 'post');
      expect(post!.visible).toContain(
        'The tool says: Deploy <to> production · ⚠️ destructive · open-world (its own hints, not verified)',
      );
      expect(post!.visible).toMatch(
        /⚠️ Connector ci-server is disconnected: an approved call waits for it to come back/,
      );
      expect(post!.visible).not.toContain('(arguments): Connector');
      expect(post!.active).toEqual([]);
    });

    it("names the chain of agents down to the sub-agent that asked, beside the inner call, and no chain on a run's own call", async () => {
      const w = world({ nested: true });
      const fixture = await setup(w.runtime);
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      const [step] = run.pendingApprovals[0]!.path!;
      const [post] = fixture.deliveries().filter((delivery) => delivery.kind === 'post');
      expect(post!.visible).toContain('deploy');
      expect(post!.visible).toContain(
        `↳ Asked by sub-agent deployer: ops › deployer (via delegate call deployer ${step!.toolCallId}). You decide its call deploy itself.`,
      );
      expect(post!.active).toEqual([]);

      const own = world();
      const ownFixture = await setup(own.runtime);
      await own.runtime.start('ops', { input: 'go' });
      await ownFixture.notifier.publish(own.events);
      await ownFixture.notifier.flush();
      const [ownPost] = ownFixture.deliveries().filter((delivery) => delivery.kind === 'post');
      expect(ownPost!.visible).toContain('deploy');
      expect(ownPost!.visible).not.toContain('sub-agent');
    });

    it('retries a failing service with backoff and honours its Retry-After, posting the card once', async () => {
      const w = world();
      const fixture = await setup(w.runtime, { faults: [{ status: 503 }, { status: 429, retryAfterSeconds: 2 }] });
      await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      expect(fixture.deliveries().filter((delivery) => delivery.kind === 'post')).toHaveLength(1);
      expect(fixture.sleeps).toHaveLength(2);
      expect(fixture.sleeps[1]).toBe(2000);
      expect(fixture.errors).toEqual([]);
    });

    it('asks once however often the event is delivered, also by another process of the app', async () => {
      const w = world();
      const fixture = await setup(w.runtime);
      await w.runtime.start('ops', { input: 'go' });
      const other = fixture.another();
      await Promise.all([
        fixture.notifier.publish(w.events),
        other.publish(w.events),
        fixture.notifier.publish(w.events),
      ]);
      await Promise.all([fixture.notifier.flush(), other.flush()]);
      expect(fixture.deliveries().filter((delivery) => delivery.kind === 'post')).toHaveLength(1);
    });

    it('updates the card when the approval is decided elsewhere and when the call finishes', async () => {
      const w = world();
      const fixture = await setup(w.runtime);
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      await w.runtime.respond(run.runId, {
        approvalId: run.pendingApprovals[0]!.approvalId,
        approved: true,
        approvedBy: 'alice@example.com',
      });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      const updates = fixture.deliveries().filter((delivery) => delivery.kind === 'update');
      expect(updates.some((update) => update.visible.includes('Approved by alice@example.com'))).toBe(true);
      expect(
        updates.some((update) => update.visible.includes('deploy ran') && update.visible.includes('deployed svc-0')),
      ).toBe(true);
      expect(w.executed).toEqual(['svc-0']);
    });

    it("ignores a streaming model's deltas: its run is asked about and updated exactly as one whose model does not stream", async () => {
      const deliveriesOf = async (stream: boolean) => {
        const w = world({ stream });
        const fixture = await setup(w.runtime);
        const run = await w.runtime.start('ops', { input: 'go' });
        await w.runtime.respond(run.runId, {
          approvalId: run.pendingApprovals[0]!.approvalId,
          approved: true,
          approvedBy: 'alice@example.com',
        });
        expect(w.events.some((event) => event.type === 'model-delta')).toBe(stream);
        await fixture.notifier.publish(w.events);
        await fixture.notifier.flush();
        expect(fixture.errors).toEqual([]);
        return fixture.deliveries().map((delivery) => delivery.kind);
      };
      const streamed = await deliveriesOf(true);
      expect(streamed).toEqual(await deliveriesOf(false));
      expect(streamed[0]).toBe('post');
    });

    it('reports a refusing service to onError without any secret, and never to the run', async () => {
      const w = world();
      const fixture = await setup(w.runtime, { faults: [{ status: 403 }], echoSecretsInErrors: true });
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      expect(fixture.errors.length).toBeGreaterThan(0);
      for (const error of fixture.errors) {
        const text = `${String(error)} ${String((error as Error).cause ?? '')} ${JSON.stringify(error)}`;
        for (const secret of harness.secrets) expect(text).not.toContain(secret);
      }
      expect((await w.runtime.get(run.runId)).status).toBe('awaitingApproval');
    });

    it('decides on a click once, tells a second click it was already decided, and refuses someone who may not decide', async () => {
      const w = world({ calls: 2 });
      const fixture = await setup(w.runtime);
      if (!fixture.click || !fixture.decider) return expect(harness.name).toBe('webhooks');
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      expect(await fixture.click(0, 'approve', 'U1')).toMatch(/Approved by .*: .*deploy.*, run is awaitingApproval\./s);
      expect(await fixture.click(0, 'approve', 'U2')).toMatch(/Already approved by .*; nothing was done again\./);
      expect(await fixture.click(1, 'deny', 'U2')).toMatch(/Denied by .*: .*deploy.*, run is completed\./s);
      const audit = (await w.runtime.get(run.runId)).audit;
      expect(audit.map((entry) => [entry.decision, entry.by])).toEqual([
        ['approved', fixture.decider('U1')],
        ['denied', fixture.decider('U2')],
      ]);

      const guarded = world({ approvers: ['someone-else'] });
      const second = await setup(guarded.runtime);
      await guarded.runtime.start('ops', { input: 'go' });
      await second.notifier.publish(guarded.events);
      await second.notifier.flush();
      expect(await second.click!(0, 'approve', 'U3')).toMatch(
        /may not decide this approval; nothing was done\. Ask one of its approvers\./,
      );
      expect(guarded.executed).toEqual([]);
    });

    it('on a request several people must approve, a click is a vote that says how many more are needed; the quorum runs the call once', async () => {
      const w = world({ approvals: { required: 2 } });
      const fixture = await setup(w.runtime);
      if (!fixture.click || !fixture.decider) return expect(harness.name).toBe('webhooks');
      const run = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      expect(fixture.deliveries()[0]!.visible).toContain('Needs 2 approvals: 0 so far, 2 more needed');
      expect(await fixture.click(0, 'approve', 'U1')).toMatch(
        /Vote by .* recorded: 1 of 2 approvals, 1 more approval needed\./s,
      );
      // The same person clicking again (a retried click) counts once.
      expect(await fixture.click(0, 'approve', 'U1')).toMatch(/nothing was done again/);
      expect(w.executed).toEqual([]);
      expect(await fixture.click(0, 'approve', 'U2')).toMatch(/Approved by .*: .*deploy.*, run is completed\./s);
      expect(w.executed).toEqual(['svc-0']);
      const entry = (await w.runtime.get(run.runId)).audit[0]!;
      expect(entry.votes!.map((vote) => vote.by)).toEqual([fixture.decider('U1'), fixture.decider('U2')]);
    });

    it('offers "Approve for this session" on a run with a session (a session grant: its next run is not asked) and "Approve for this run" otherwise, never on a quorum request', async () => {
      const w = world();
      const fixture = await setup(w.runtime);
      if (!fixture.click || !fixture.buttons || !fixture.decider) return expect(harness.name).toBe('webhooks');
      const first = await w.runtime.start('ops', { input: 'go', sessionId: 'chat-1' });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      const labels = fixture.buttons(0);
      expect(labels.some((label) => label.includes('Approve for this session'))).toBe(true);
      expect(labels.some((label) => label.includes('for this run'))).toBe(false);
      expect(await fixture.click(0, 'wider', 'U1')).toMatch(/Approved by .*: .*deploy.*, run is completed\./s);
      const entry = (await w.runtime.get(first.runId)).audit[0]!;
      expect([entry.decision, entry.scope, entry.by]).toEqual(['approved', 'session', fixture.decider('U1')]);
      expect(
        (await w.runtime.grants({ sessionId: 'chat-1' })).map((grant) => [grant.toolName, grant.grantedBy]),
      ).toEqual([['deploy', fixture.decider('U1')]]);
      // The next run of the conversation is covered by the grant: nobody is asked again.
      const next = await w.runtime.start('ops', { input: 'again', sessionId: 'chat-1' });
      expect(next.status).toBe('completed');
      expect(w.executed).toEqual(['svc-0', 'svc-0']);

      const alone = await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      expect(fixture.buttons(1).some((label) => label.includes('Approve for this run'))).toBe(true);
      expect(fixture.buttons(1).some((label) => label.includes('for this session'))).toBe(false);
      await fixture.click(1, 'wider', 'U2');
      expect((await w.runtime.get(alone.runId)).audit[0]!.scope).toBe('run');

      const voted = world({ approvals: { required: 2 } });
      const quorum = await setup(voted.runtime);
      await voted.runtime.start('ops', { input: 'go', sessionId: 'chat-2' });
      await quorum.notifier.publish(voted.events);
      await quorum.notifier.flush();
      expect(quorum.buttons!(0).some((label) => /for this (run|session)/.test(label))).toBe(false);
    });

    it("offers a button only for a decision the tool allows (its decisions), falls back to the run's wider approval when the session's is not offered, and says so when no decision fits a button", async () => {
      const w = world({ decisions: ['approve', 'deny'] });
      const fixture = await setup(w.runtime);
      if (!fixture.click || !fixture.buttons || !fixture.decider) return expect(harness.name).toBe('webhooks');
      await w.runtime.start('ops', { input: 'go', sessionId: 'chat-4' });
      await w.runtime.start('ops', { input: 'go' });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      for (const index of [0, 1]) {
        const labels = fixture.buttons(index);
        expect(labels.filter((label) => /Approve|Deny/.test(label))).toHaveLength(2);
        expect(labels.some((label) => /for this (run|session)/.test(label))).toBe(false);
      }

      const approveOnly = world({ decisions: ['approve'] });
      const second = await setup(approveOnly.runtime);
      const run = await approveOnly.runtime.start('ops', { input: 'go' });
      await second.notifier.publish(approveOnly.events.splice(0));
      await second.notifier.flush();
      expect(second.buttons!(0).some((label) => /Deny/.test(label))).toBe(false);
      expect(await second.click!(0, 'approve', 'U1')).toMatch(/Approved by .*: .*deploy.*, run is completed\./s);
      expect((await approveOnly.runtime.get(run.runId)).audit[0]!.scope).toBe('once');

      const runWide = world({ decisions: ['approve', 'run', 'deny'] });
      const third = await setup(runWide.runtime);
      const inSession = await runWide.runtime.start('ops', { input: 'go', sessionId: 'chat-5' });
      await third.notifier.publish(runWide.events.splice(0));
      await third.notifier.flush();
      expect(third.buttons!(0).some((label) => label.includes('Approve for this run'))).toBe(true);
      expect(third.buttons!(0).some((label) => label.includes('for this session'))).toBe(false);
      await third.click!(0, 'wider', 'U2');
      expect((await runWide.runtime.get(inSession.runId)).audit[0]!.scope).toBe('run');

      const editOnly = world({ decisions: ['edit'] });
      const fourth = await setup(editOnly.runtime);
      await editOnly.runtime.start('ops', { input: 'go' });
      await fourth.notifier.publish(editOnly.events.splice(0));
      await fourth.notifier.flush();
      expect(fourth.buttons!(0)).toEqual([]);
      expect(fourth.deliveries()[0]!.visible).toContain(
        'No decision this request offers can be made with a button here',
      );
    });

    it('offers no "Approve for this run" on a run that makes one call (an MCP gateway\'s), and still "for this session" on one with a session', async () => {
      const w = world({ oneCallPerRun: true });
      const fixture = await setup(w.runtime);
      if (!fixture.buttons) return expect(harness.name).toBe('webhooks');
      await w.runtime.start('ops', { input: 'go' });
      await w.runtime.start('ops', { input: 'go', sessionId: 'chat-3' });
      await fixture.notifier.publish(w.events.splice(0));
      await fixture.notifier.flush();
      expect(fixture.buttons(0).some((label) => /for this (run|session)/.test(label))).toBe(false);
      expect(fixture.buttons(0).some((label) => /Approve/.test(label))).toBe(true);
      expect(fixture.buttons(1).some((label) => label.includes('Approve for this session'))).toBe(true);
    });
  });
}

/** Questions with a typed answer: rendered with their field, answered through the channel's form, a bad answer refused. */
function questionContract(harness: ChannelHarness): void {
  describe(`the channel contract, questions: ${harness.name}`, () => {
    const open: ChannelFixture[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((fixture) => fixture.close()));
    });
    const asked = async (form: 'region' | 'name') => {
      const w = questionWorld();
      const fixture = await harness.setup(w.runtime, {});
      open.push(fixture);
      const handle = await w.ask(form);
      await fixture.notifier.publish(w.events);
      await fixture.notifier.flush();
      return { w, fixture, handle };
    };

    it('shows a question with its field and options as plain text, offering Decline and no plain Approve', async () => {
      const { fixture } = await asked('region');
      const [post] = fixture.deliveries().filter((delivery) => delivery.kind === 'post');
      expect(post!.visible).toContain(QUESTION);
      expect(post!.active).toEqual([]);
      for (const shown of ['Region', 'eu-west-1', 'us-east-1']) expect(post!.visible).toContain(shown);
      if (fixture.buttons === undefined) return expect(harness.name).toBe('webhooks');
      expect(fixture.buttons(0).some((label) => /Decline/.test(label))).toBe(true);
      expect(fixture.buttons(0).some((label) => /Approve/.test(label))).toBe(false);
    });

    it("records a good answer given through the channel's form, as the person who gave it", async () => {
      const { fixture, handle } = await asked('region');
      if (!fixture.answer || !fixture.decider) return;
      const { form, told } = await fixture.answer(0, 'us-east-1', 'U1');
      for (const shown of ['Region', 'eu-west-1', 'us-east-1']) expect(form).toContain(shown);
      expect(told).toMatch(/Answered by /);
      expect(await handle.status()).toMatchObject({
        status: 'approved',
        by: fixture.decider('U1'),
        answer: { region: 'us-east-1' },
      });
    });

    it('refuses a choice outside the options and an oversized text with a clear message, recording nothing', async () => {
      const choice = await asked('region');
      if (!choice.fixture.answer) return;
      const forged = await choice.fixture.answer(0, 'mars-1', 'U1');
      expect(forged.told).toMatch(/Region must be one of eu-west-1, us-east-1/);
      expect(await choice.handle.status()).toMatchObject({ status: 'pending' });
      expect((await choice.w.runtime.get(choice.handle.id)).audit).toEqual([]);

      const text = await asked('name');
      const long = await text.fixture.answer!(0, 'x'.repeat(41), 'U1');
      expect(long.told).toMatch(/Cluster name is longer than 40 characters/);
      expect((await text.w.runtime.get(text.handle.id)).audit).toEqual([]);
      // Nothing was spent: the corrected answer is recorded.
      expect((await text.fixture.answer!(0, 'blue', 'U1')).told).toMatch(/Answered by /);
      expect(await text.handle.status()).toMatchObject({ status: 'approved', answer: { name: 'blue' } });
    });

    it('records one answer: a second, the same or another, decides nothing again', async () => {
      const { w, fixture, handle } = await asked('region');
      if (!fixture.answer) return;
      await fixture.answer(0, 'us-east-1', 'U1');
      const again = await fixture.answer(0, 'eu-west-1', 'U2');
      expect(again.told).toMatch(/nothing was done|changed nothing|no longer pending/);
      expect((await w.runtime.get(handle.id)).audit).toHaveLength(1);
      expect(await handle.status()).toMatchObject({ answer: { region: 'us-east-1' } });
    });

    it('declines a question with Decline: the request is denied, nothing answered', async () => {
      const { fixture, handle } = await asked('region');
      if (!fixture.click || !fixture.decider) return;
      expect(await fixture.click(0, 'deny', 'U2')).toMatch(/Denied by /);
      expect(await handle.status()).toMatchObject({ status: 'denied', by: fixture.decider('U2') });
    });
  });
}
