import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentAsTool, createAgent, createRuntime, defineTool, type Runtime } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { countingAgent } from '../support/runtime-harness.js';
import { runCliCaptured } from '../support/cli-run.js';

function cli(runtime: Runtime, argv: string[], input = '') {
  return runCliCaptured(argv, { runtime, input, env: { COUNTERSIGN_RUNTIME: './runtime.js' } });
}

async function pausedRuntime(calls = 1, options: Omit<Parameters<typeof countingAgent>[0], 'calls'> = {}) {
  const counting = countingAgent({ calls, ...options });
  const runtime = createRuntime({ agents: [counting.agent] });
  const paused = await runtime.start(counting.agent.name, { input: 'pay' });
  return { counting, runtime, paused };
}

describe('countersign CLI', () => {
  it('lists pending approvals, shows a run, approves it and reports the run finished', async () => {
    const { counting, runtime, paused } = await pausedRuntime();
    const request = paused.pendingApprovals[0]!;
    const pending = await cli(runtime, ['pending']);
    expect(pending.code).toBe(0);
    expect(pending.out).toContain(`approval ${request.approvalId}`);
    expect(pending.out).toContain('send_payment');
    const shown = await cli(runtime, ['show', paused.runId, '--json']);
    expect(JSON.parse(shown.out)).toMatchObject({ runId: paused.runId, status: 'awaitingApproval' });
    const approved = await cli(runtime, ['approve', paused.runId, request.approvalId, '--by', 'alice']);
    expect(approved).toMatchObject({ code: 0, out: 'approved; run is completed\n' });
    expect(counting.executions).toHaveLength(1);
    const again = await cli(runtime, ['approve', paused.runId, request.approvalId, '--by', 'alice']);
    expect(again.out).toContain('(already recorded)');
    const conflict = await cli(runtime, ['deny', paused.runId, request.approvalId]);
    expect(conflict.code).toBe(1);
    expect(conflict.err).toContain('[decision_conflict]');
  });

  it("shows a run's session in show and pending, and pending --session lists that session's approvals only", async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const inSession = await runtime.start(counting.agent.name, { input: 'pay', sessionId: 'chat-7' });
    const other = await runtime.start(counting.agent.name, { input: 'pay' });
    expect((await cli(runtime, ['show', inSession.runId])).out).toContain(
      `run ${inSession.runId}  agent ${counting.agent.name}  session chat-7\n`,
    );
    const pending = await cli(runtime, ['pending', '--session', 'chat-7']);
    expect(pending.out).toContain(
      `  run ${inSession.runId}  session chat-7  approval ${inSession.pendingApprovals[0]!.approvalId}\n`,
    );
    expect(pending.out).not.toContain(other.runId);
  });

  it('dismisses a request: recorded with source dismissed, the call does not run', async () => {
    const { counting, runtime, paused } = await pausedRuntime();
    const request = paused.pendingApprovals[0]!;
    const dismissed = await cli(runtime, ['dismiss', paused.runId, request.approvalId, '--by', 'alice']);
    expect(dismissed).toMatchObject({ code: 0, out: 'dismissed; run is completed\n' });
    expect((await runtime.get(paused.runId)).audit.at(-1)).toMatchObject({
      source: 'dismissed',
      decision: 'denied',
      by: 'alice',
    });
    expect(counting.executions).toHaveLength(0);
  });

  it('reviews pending approvals one by one from standard input, in plain text: y, n with a reason, j skips, s for the run', async () => {
    const { counting, runtime, paused } = await pausedRuntime(4);
    const review = await cli(runtime, ['review', '--by', 'bob'], 'y\nx\nn\ntoo risky\nj\ns\n');
    expect(review.code).toBe(0);
    expect(review.out).toContain('1 of 4  agent ');
    expect(review.out).toContain(
      'y approve once · s approve for this run · n deny · d dismiss · e edit · v view all · j skip · q quit\n> ',
    );
    expect(review.out).toContain('x is not a key here; answer y, s, n, d, e, v, j or q');
    expect(review.out).toContain('denied (too risky): the call does not run');
    // y and n leave the run waiting; s approves the tool for the run, which covers the skipped call too.
    expect(review.out).toContain(
      "approved once: the tool runs here in the process that decides the run's last pending approval",
    );
    expect(review.out).toContain('approved for this run: the tool ran here in this process');
    expect(review.out).toContain('3 decided');
    expect(review.out).not.toContain('\u001b');
    const run = await runtime.get(paused.runId);
    expect(
      run.audit
        .filter((entry) => entry.source === 'human')
        .map((entry) => [entry.decision, entry.scope, entry.by, entry.reason]),
    ).toEqual([
      ['approved', 'once', 'bob', undefined],
      ['denied', 'once', 'bob', 'too risky'],
      ['approved', 'run', 'bob', undefined],
    ]);
    expect(run.status).toBe('completed');
    expect(counting.executions).toHaveLength(3);
  });

  it('review asks a question field by field, asking a field again until it fits, and records the typed answer', async () => {
    const runtime = createRuntime({});
    const answered = await runtime.requestInput({
      question: 'Where should blue run?',
      answer: z.object({
        region: z.enum(['eu-west-1', 'us-east-1']).meta({ title: 'Region' }),
        zones: z.array(z.enum(['a', 'b', 'c'])).meta({ title: 'Zones' }),
        nodes: z.number().int().min(1).max(9).meta({ title: 'Nodes' }),
        public: z.boolean().meta({ title: 'Public' }),
        note: z.string().optional().meta({ title: 'Note' }),
      }),
    });
    const review = await cli(runtime, ['review', '--by', 'bob'], 'a\nmars-1\n2\n1, c\n12\n4\n\ny\n\n');
    expect(review.code).toBe(0);
    expect(review.out).toContain('Region (one of eu-west-1, us-east-1)');
    expect(review.out).toContain('Region must be one of eu-west-1, us-east-1');
    expect(review.out).toContain('Nodes must be at most 9');
    expect(review.out).toContain('Public is required: y or n');
    expect(review.out).toContain('answered: ');
    expect(await answered.status()).toMatchObject({
      status: 'approved',
      by: 'bob',
      answer: { region: 'us-east-1', zones: ['a', 'c'], nodes: 4, public: true },
    });
    const declined = await runtime.requestInput({ question: 'And green?', answer: z.object({ region: z.string() }) });
    expect((await cli(runtime, ['review', '--by', 'bob'], 'n\n')).out).toContain('declined: ');
    expect(await declined.status()).toMatchObject({ status: 'denied', by: 'bob' });
  });

  it('review offers a key only for a decision the request offers, and says which ones it offers', async () => {
    const { counting, runtime, paused } = await pausedRuntime(1, { decisions: ['approve', 'deny'] });
    const pending = await cli(runtime, ['pending']);
    expect(pending.out).toContain('decisions offered: approve, deny');
    const review = await cli(runtime, ['review', '--by', 'bob'], 'e\ns\ny\n');
    expect(review.out).toContain('y approve once · n deny · d dismiss · v view all · j skip · q quit\n> ');
    expect(review.out).toContain('e is not a key here; answer y, n, d, v, j or q');
    expect(review.out).toContain('s is not a key here');
    expect((await runtime.get(paused.runId)).audit.map((entry) => [entry.scope, entry.by])).toEqual([['once', 'bob']]);
    expect(counting.executions).toHaveLength(1);
  });

  it('review d dismisses the card as `countersign dismiss` does: source dismissed, by the reviewer, the call does not run', async () => {
    const { counting, runtime, paused } = await pausedRuntime();
    const review = await cli(runtime, ['review', '--by', 'bob'], 'd\n');
    expect(review.code).toBe(0);
    expect(review.out).toContain('dismissed (closed without a decision): the call does not run');
    expect(review.out).toContain('1 decided');
    expect((await runtime.get(paused.runId)).audit.at(-1)).toMatchObject({
      source: 'dismissed',
      decision: 'denied',
      by: 'bob',
    });
    expect(counting.executions).toHaveLength(0);
  });

  it('review --json prints the pending cards as JSON Lines and decides nothing', async () => {
    const { runtime, paused } = await pausedRuntime(2);
    const review = await cli(runtime, ['review', '--json'], 'y\ny\n');
    expect(review.code).toBe(0);
    const cards = review.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // In the order the reviewer would see them: what `pending` lists.
    const { items } = await runtime.pending();
    expect(cards).toEqual(items.map((item, index) => ({ position: index + 1, total: 2, ...item })));
    expect(cards.map((card) => (card['request'] as { approvalId: string }).approvalId).sort()).toEqual(
      paused.pendingApprovals.map((request) => request.approvalId).sort(),
    );
    expect((await runtime.get(paused.runId)).audit).toEqual([]);
  });

  it('review --mode record says the tool has not run, and resume RUN_ID then runs it', async () => {
    const { counting, runtime, paused } = await pausedRuntime();
    const review = await cli(runtime, ['review', '--mode', 'record'], 'y\n');
    expect(review.out).toContain(
      `approved once: recorded only: the tool runs where the run is resumed (countersign resume ${paused.runId})`,
    );
    expect(counting.executions).toHaveLength(0);
    const resumed = await cli(runtime, ['resume', paused.runId]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(`run ${paused.runId}  agent ${paused.agentName}\n  status completed`);
    expect(counting.executions).toHaveLength(1);
    expect((await cli(runtime, ['resume'])).err).toContain('resume takes a run id');
  });

  it('inbox-link mints a reviewer inbox link the runtime accepts, and says how to enable links when the runtime has none', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({
      agents: [counting.agent],
      links: { secret: 'inbox-link-secret-0123456789abcdef' },
    });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const minted = await cli(runtime, [
      'inbox-link',
      'carol@example.com',
      '--base-url',
      'https://approvals.example.com/',
      '--expires-in',
      '60000',
      '--json',
    ]);
    expect(minted.code).toBe(0);
    const link = JSON.parse(minted.out) as { url: string; token: string; expiresAt: number; reviewer: string };
    expect(link.url).toBe(`https://approvals.example.com/inbox/${link.token}`);
    const inbox = await runtime.reviewInbox(link.token);
    expect(inbox).toMatchObject({ reviewer: 'carol@example.com', expiresAt: link.expiresAt });
    expect(inbox.items.map((item) => item.runId)).toEqual([paused.runId]);
    const text = await cli(runtime, ['inbox-link', 'carol@example.com']);
    expect(text.out).toMatch(
      /^\/inbox\/\S+\n {2}carol@example\.com's inbox until \S+ \(a path on the approval app; --base-url URL gives the whole link\)\n$/,
    );
    const { runtime: unlinked } = await pausedRuntime();
    const refused = await cli(unlinked, ['inbox-link', 'carol@example.com']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('[links_not_configured]');
    expect(refused.err).toContain('createRuntime({ agents, store, links: { secret } })');
    expect((await cli(runtime, ['inbox-link'])).err).toContain('inbox-link takes the reviewer it is for');
  });

  it('edits arguments, cancels, sweeps and recovers', async () => {
    const { counting, runtime, paused } = await pausedRuntime();
    const edit = await cli(runtime, [
      'approve',
      paused.runId,
      paused.pendingApprovals[0]!.approvalId,
      '--args',
      '{"to":"acct-9","cents":5}',
    ]);
    expect(edit.code).toBe(0);
    expect(counting.executions).toHaveLength(1);
    const badEdit = await cli(runtime, ['approve', paused.runId, 'x', '--args', '{nope']);
    expect(badEdit.code).toBe(2);
    const other = await runtime.start(counting.agent.name, { input: 'pay' });
    expect((await cli(runtime, ['cancel', other.runId])).out).toBe(`run ${other.runId} is cancelled\n`);
    expect((await cli(runtime, ['sweep'])).out).toBe('expired 0 approvals in 0 runs\n');
    expect((await cli(runtime, ['recover', '--json'])).out).toContain('"askedAgain": 0');
  });

  it('explains usage mistakes with exit code 2', async () => {
    const { runtime } = await pausedRuntime();
    expect((await cli(runtime, [])).code).toBe(2);
    expect((await cli(runtime, ['frobnicate'])).err).toContain('unknown command frobnicate');
    // A name every object has is no command either.
    expect(await cli(runtime, ['toString'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('unknown command toString'),
    });
    expect((await cli(runtime, ['show'])).err).toContain('show takes a run id');
    expect((await cli(runtime, ['approve', 'r', 'a', '--scope', 'forever'])).err).toContain(
      '--scope must be one of once, run',
    );
    expect((await cli(runtime, ['--help'])).code).toBe(0);
  });

  it("shows the tool's claims about itself (destructive marked like a warning) and that its connector is down, without emoji escapes", async () => {
    const purge = defineTool({
      name: 'purge_cache',
      description: 'Purge the CDN cache',
      input: z.object({}),
      annotations: { title: 'Purge everything', destructiveHint: true, openWorldHint: true },
      connector: 'cdn',
      connectorStatus: () => 'failed',
      execute: () => 'purged',
    });
    const runtime = createRuntime({
      agents: [
        createAgent({ name: 'ops', model: createScriptedModel([toolCallTurn('purge_cache', {})]), tools: [purge] }),
      ],
    });
    await runtime.start('ops', { input: 'purge' });
    const { out } = await cli(runtime, ['pending']);
    expect(out).toContain(
      '  The tool says: Purge everything · ! destructive · open-world (its own hints, not verified)\n',
    );
    expect(out).toContain(
      '  ! connector-disconnected: Connector cdn is down (reconnecting gave up): an approved call waits for it to come back, and fails if it does not.\n',
    );
    expect(out).not.toContain('\\u');
    expect(out).not.toContain('sub-agent');
  });

  it('names the chain of agents down to the sub-agent whose call waits, under the inner call it decides', async () => {
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy a release',
      input: z.object({ version: z.string() }),
      needsApproval: true,
      execute: ({ version }) => `deployed ${version}`,
    });
    const deployer = createAgent({
      name: 'deployer',
      model: createScriptedModel([toolCallTurn('deploy', { version: '1.4' }), textTurn('shipped')]),
      tools: [deploy],
    });
    const lead = createAgent({
      name: 'lead',
      model: createScriptedModel([toolCallTurn('deployer', { task: 'ship 1.4' }), textTurn('done')]),
      tools: [agentAsTool(deployer)],
    });
    const runtime = createRuntime({ agents: [lead] });
    const paused = await runtime.start('lead', { input: 'ship' });
    const request = paused.pendingApprovals[0]!;
    const { out } = await cli(runtime, ['pending']);
    expect(out).toContain('deploy  Deploy a release\n');
    expect(out).toContain(
      `  ↳ Asked by sub-agent deployer: lead › deployer (via delegate call deployer ${request.path![0]!.toolCallId}). You decide its call deploy itself.\n`,
    );
    expect((await cli(runtime, ['show', paused.runId])).out).toContain('Asked by sub-agent deployer: lead › deployer');
  });

  it('prints no terminal control sequences a tool call smuggled into its description', async () => {
    const { paused } = await pausedRuntime();
    const { formatRequest } = await import('../../src/cli/format.js');
    const request = {
      ...paused.pendingApprovals[0]!,
      description: 'Pay \u001b[2J\u001b]0;owned\u0007now',
      reason: 'why\u001b[31m',
    };
    const text = formatRequest(paused, request, Date.now());
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('Pay \\u001b[2J');
  });

  it('prints what another caller wrote (a deny reason) inert: C1 controls, bidi and tag characters as escapes in text and --json; such a name is refused', async () => {
    const { runtime, paused } = await pausedRuntime();
    const request = paused.pendingApprovals[0]!;
    const written = 'mallory\u202e\u009b2J\u{E0041}';
    await expect(
      runtime.respond(paused.runId, { approvalId: request.approvalId, approved: true, approvedBy: written }),
    ).rejects.toThrow(/approvedBy.*invisible or control character \(U\+202E\)/);
    await runtime.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: false,
      approvedBy: 'mallory',
      reason: written,
    });
    const shown = await cli(runtime, ['show', paused.runId]);
    const json = await cli(runtime, ['show', paused.runId, '--json']);
    for (const printed of [shown.out, json.out]) {
      expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\u{E0041}]/u);
      expect(printed).toContain('mallory\\u202e\\u009b2J\\udb40\\udc41');
    }
    // The escapes are JSON's own, so --json output still parses to the very same value.
    expect(JSON.parse(json.out).audit[0].reason).toBe(written);
  });

  it('approves for a session with bounds, lists the grant, revokes it, and clears a session', async () => {
    const counting = countingAgent({ calls: 1 });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay', sessionId: 'chat-9' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const approved = await cli(runtime, [
      'approve',
      paused.runId,
      approvalId,
      '--by',
      'alice',
      '--scope',
      'session',
      '--uses',
      '2',
      '--ttl',
      '60000',
    ]);
    expect(approved.code).toBe(0);
    const listed = await cli(runtime, ['grants', '--session', 'chat-9']);
    expect(listed.out).toMatch(/^grt_\w+ {2}session chat-9 {2}\S+ approved by alice {2}used 0\/2 {2}until /);
    const [grant] = await runtime.grants({ sessionId: 'chat-9' });
    expect((await cli(runtime, ['revoke-grant', grant!.id])).out).toBe(`revoked ${grant!.id}\n`);
    expect((await cli(runtime, ['grants'])).out).toBe('no live grants\n');
    expect((await cli(runtime, ['clear-session', 'chat-9', '--json'])).out).toBe('{\n  "revoked": 0\n}\n');
    expect((await cli(runtime, ['approve', paused.runId, approvalId, '--uses', '0'])).code).toBe(2);
  });
});
