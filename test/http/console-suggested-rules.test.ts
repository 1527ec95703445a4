// Suggested rules on the console's rules page: proposed after repeated approvals, confirmed in shadow mode (requests
// then say a suggested rule would have allowed them), let act, after which the next such call runs unasked.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createMemoryRuleStore, createRuntime, defineTool } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const TOKEN = 'console-test-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function setup() {
  const tool = (name: string, grantable?: boolean) =>
    defineTool({
      name,
      description: `Run ${name}`,
      input: z.object({ target: z.string() }),
      needsApproval: true,
      ...(grantable === undefined ? {} : { grantable }),
      execute: ({ target }) => `${name} ${target}`,
    });
  const model = createScriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return textTurn('done');
    const [name, target] = String(last?.content).split(' ');
    return toolCallTurn(name!, { target: target! });
  });
  const rules = createMemoryRuleStore();
  const runtime = createRuntime({
    agents: [createAgent({ name: 'ops', model, tools: [tool('deploy'), tool('wire', false)], ruleStore: rules })],
  });
  const app = createApprovalApp(runtime, { bearerToken: TOKEN, rules });
  const api = (path: string, body: unknown) =>
    app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const signIn = async () => {
    const response = await app.request('/console/session', {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ token: TOKEN, name: 'alice' }).toString(),
    });
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie } })).text())![1]!;
    return { cookie, csrf };
  };
  const post = (path: string, who: { cookie: string }, fields: Record<string, string>) =>
    app.request(path, {
      method: 'POST',
      headers: { ...FORM, cookie: who.cookie },
      body: new URLSearchParams(fields).toString(),
    });
  const page = async (path: string, who: { cookie: string }) =>
    (await app.request(path, { headers: { cookie: who.cookie } })).text();
  /** Starts a run calling `tool` on `target`; approves it as `by` when `approve` is set. */
  const run = async (tool: string, target: string, approve?: boolean) => {
    const paused = await runtime.start('ops', { input: `${tool} ${target}` });
    if (approve === undefined || paused.status !== 'awaitingApproval') return paused;
    const request = paused.pendingApprovals[0]!;
    await runtime.respond(paused.runId, { approvalId: request.approvalId, approved: approve, approvedBy: 'alice' });
    return runtime.get(paused.runId);
  };
  return { runtime, rules, signIn, post, page, run, api };
}

describe('console: suggested rules', () => {
  it('proposes, confirms in shadow mode, annotates, lets act; never for a tool that is not grantable', async () => {
    const { rules, signIn, post, page, run } = setup();
    const alice = await signIn();
    expect(await page('/console/rules', alice)).toContain('No suggestions yet.');
    for (let i = 0; i < 5; i += 1) {
      await run('deploy', `staging-${i}`, true);
      await run('wire', `acct-${i}`, true);
    }
    const listed = await page('/console/rules', alice);
    expect(listed).toContain(
      'allow <code>deploy</code></strong> for agent <code>ops</code>: approved 5 times by alice',
    );
    expect(listed).toContain('<code>target</code> = <code>&quot;staging-*&quot;</code>');
    expect(listed).not.toContain('allow <code>wire</code>');

    // The form names a suggestion; without the CSRF token it is refused, and one not suggested is refused too.
    expect((await post('/console/rules/suggested', alice, { agent: 'ops', tool: 'deploy' })).status).toBe(403);
    const wire = await post('/console/rules/suggested', alice, { csrf: alice.csrf, agent: 'ops', tool: 'wire' });
    expect(wire.status).toBe(409);
    expect(await rules.list()).toEqual([]);
    const confirmed = await post('/console/rules/suggested', alice, { csrf: alice.csrf, agent: 'ops', tool: 'deploy' });
    expect(confirmed.status).toBe(303);
    const [rule] = await rules.list();
    expect(rule).toMatchObject({ agent: 'ops', tool: 'deploy', action: 'allow', shadow: true });
    expect(rule?.argsMatch).toEqual({ target: 'staging-*' });
    const withShadow = await page('/console/rules', alice);
    expect(withShadow).toContain('Let it act');
    expect(withShadow).not.toContain('allow <code>deploy</code></strong> for agent');
    const again = await post('/console/rules/suggested', alice, { csrf: alice.csrf, agent: 'ops', tool: 'deploy' });
    expect(again.status).toBe(409);

    const shadowed = await run('deploy', 'staging-7');
    expect(shadowed.status).toBe('awaitingApproval');
    expect(shadowed.pendingApprovals[0]?.shadowRuleId).toBe(rule!.id);
    expect(await page('/', alice)).toContain('A suggested rule would have allowed this');

    const act = await post(`/console/rules/${rule!.id}`, alice, { csrf: alice.csrf, op: 'act' });
    expect(act.status).toBe(303);
    expect((await run('deploy', 'staging-8')).status).toBe('completed');
    expect((await run('deploy', 'prod')).status).toBe('awaitingApproval');
  });

  it('proposes nothing for a tool that was denied in the window', async () => {
    const { signIn, page, run } = setup();
    const alice = await signIn();
    await page('/console/rules', alice);
    for (let i = 0; i < 6; i += 1) await run('deploy', `staging-${i}`, true);
    await run('deploy', 'staging-x', false);
    expect(await page('/console/rules', alice)).toContain('No suggestions yet.');
  });

  it('over the API: POST /rules adds a shadow rule with bounds, POST /rules/:ruleId turns shadow mode off or on', async () => {
    const { rules, run, api } = setup();
    const added = await api('/rules', {
      tool: 'deploy',
      action: 'allow',
      shadow: true,
      argsMatch: { target: 'staging-*' },
    });
    expect(added.status).toBe(201);
    const { rule } = (await added.json()) as { rule: { id: string } };
    expect((await run('deploy', 'staging-1')).pendingApprovals[0]?.shadowRuleId).toBe(rule.id);
    expect((await api(`/rules/${rule.id}`, {})).status).toBe(400);
    const acting = await api(`/rules/${rule.id}`, { shadow: false });
    expect(((await acting.json()) as { rule: object }).rule).not.toHaveProperty('shadow');
    expect((await run('deploy', 'staging-2')).status).toBe('completed');
    await api(`/rules/${rule.id}`, { shadow: true, enabled: true });
    expect(await rules.list()).toEqual([expect.objectContaining({ id: rule.id, shadow: true, enabled: true })]);
  });
});
