// What MCP tools stand on, in the core: tool sources that change while an agent lives, a call cut off mid-way
// (OutcomeUnknownError), annotations shown but trusted only when the definition says so, and connector health.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyTool,
  type ConnectorStatus,
  ConfigError,
  createMemoryStore,
  createRuntime,
  defineTool,
  deserialize,
  OutcomeUnknownError,
  presets,
  serialize,
  type Message,
  type ToolDefinition,
  type ToolSource,
  withApprovalResponse,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from '../support/test-kit.js';

type EchoInput = { q: string };

function echo(name: string, extra: Partial<ToolDefinition<EchoInput>> = {}): AnyTool {
  return defineTool<EchoInput>({
    name,
    description: `The ${name} tool`,
    input: z.object({ q: z.string() }),
    needsApproval: false,
    execute: ({ q }) => `${name}:${q}`,
    ...extra,
  });
}

/** What the tools answered in the run, in order. */
function toolResults(messages: readonly Message[]): string[] {
  return messages.filter((message) => message.role === 'tool').map((message) => message.content);
}

describe('tool sources', () => {
  it('a tool a source adds after the agent was made is offered to the model and runs', async () => {
    const source: { tools: readonly AnyTool[] } = { tools: [echo('first')] };
    const offered: string[][] = [];
    const model = createScriptedModel([
      (request) => {
        offered.push(request.tools.map((tool) => tool.name));
        return toolCallTurn('second', { q: 'x' });
      },
      textTurn('done'),
    ]);
    const agent = testAgent({ model, tools: [echo('own'), source] });
    source.tools = [echo('first'), echo('second')];
    const done = await agent.execute({ input: 'go' });
    expect(offered[0]).toEqual(['own', 'first', 'second']);
    expect(done.status).toBe('completed');
    expect(toolResults(done.messages)).toEqual(['second:x']);
  });

  it('two tools of one name are refused when the agent is made, a later clash keeps the tool the agent had', () => {
    expect(() =>
      testAgent({ model: createScriptedModel([]), tools: [echo('same'), { tools: [echo('same')] }] }),
    ).toThrow(ConfigError);
    const source: { tools: readonly AnyTool[] } = { tools: [] };
    const mine = echo('same');
    const agent = testAgent({ model: createScriptedModel([]), tools: [mine, source] });
    source.tools = [echo('same', { description: 'an impostor' })];
    expect(agent.tools.get('same')).toBe(mine);
    expect(agent.settings.specs.map((spec) => spec.description)).toEqual(['The same tool']);
  });

  it('a tool its source drops is not offered again, but a run paused on it resumes with the tool answering', async () => {
    const gated = echo('gone', { needsApproval: true, execute: () => 'the tool answered after it was dropped' });
    const source: { tools: readonly AnyTool[] } = { tools: [gated] };
    const offered: string[][] = [];
    const model = createScriptedModel([
      toolCallTurn('gone', { q: 'x' }),
      (request) => {
        offered.push(request.tools.map((tool) => tool.name));
        return toolCallTurn('gone', { q: 'again' });
      },
      textTurn('done'),
    ]);
    const agent = testAgent({ model, tools: [source] });
    const paused = await agent.execute({ input: 'go' });
    source.tools = [];
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
    );
    expect(offered).toEqual([[]]);
    expect(toolResults(done.messages)[0]).toBe('the tool answered after it was dropped');
    expect(toolResults(done.messages)[1]).toMatch(/Unknown tool gone/);
    expect([...agent.tools.keys()]).toEqual([]);
  });

  it('anything that is neither a tool nor a source is refused by name', () => {
    expect(() =>
      testAgent({ model: createScriptedModel([]), tools: [{ name: 'x' } as unknown as ToolSource] }),
    ).toThrow(/tools\.0 must be made with defineTool, or be a source of tools/);
  });
});

describe('a call cut off mid-way (OutcomeUnknownError)', () => {
  const cutOff = (idempotent: boolean) => {
    let calls = 0;
    const tool = defineTool({
      name: 'charge',
      description: 'Charge a card',
      input: z.object({ cents: z.number() }),
      needsApproval: false,
      idempotent,
      execute: () => {
        calls += 1;
        if (calls === 1) throw new OutcomeUnknownError('the payments connector disconnected mid-call');
        return 'charged';
      },
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('charge', { cents: 5 }), textTurn('done')]),
      tools: [tool],
    });
    return { agent, calls: () => calls };
  };

  it('is put to a person again for a tool that is not idempotent; approving runs it once more', async () => {
    const { agent, calls } = cutOff(false);
    const paused = await agent.execute({ input: 'go' });
    expect(paused.status).toBe('awaitingApproval');
    const request = paused.pendingApprovals[0]!;
    expect(request).toMatchObject({ toolName: 'charge', outcomeUnknown: true });
    expect(request.reason).toMatch(
      /cut off before it reported a result \(the payments connector disconnected mid-call\)/,
    );
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true }, { agent }),
    );
    expect([done.status, calls()]).toEqual(['completed', 2]);
    expect(toolResults(done.messages)).toEqual(['charged']);
  });

  it('is an error result the model reads for an idempotent tool (it may call again)', async () => {
    const { agent, calls } = cutOff(true);
    const done = await agent.execute({ input: 'go' });
    expect([done.status, calls()]).toEqual(['completed', 1]);
    expect(toolResults(done.messages)[0]).toMatch(/charge failed: the payments connector disconnected mid-call/);
  });
});

describe('annotations and connector health', () => {
  const annotated = (status: ConnectorStatus, readOnly?: boolean) =>
    echo('lookup', {
      needsApproval: true,
      connector: 'crm',
      annotations: { title: 'Look up a customer', readOnlyHint: true, openWorldHint: true },
      connectorStatus: () => status,
      ...(readOnly === undefined ? {} : { readOnly }),
    });

  it('a request carries the annotations and, while the connector is down, a connector-disconnected warning; both survive the store', async () => {
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('lookup', { q: 'ada' }), textTurn('done')]),
      tools: [annotated('disconnected')],
    });
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    expect(request.annotations).toEqual({ title: 'Look up a customer', readOnlyHint: true, openWorldHint: true });
    expect(request.warnings[0]).toMatchObject({ code: 'connector-disconnected', path: '' });
    expect(request.warnings[0]!.message).toMatch(/Connector crm is disconnected/);
    expect(deserialize(serialize(paused)).pendingApprovals[0]).toEqual(request);
  });

  it('a connected connector adds no warning', async () => {
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('lookup', { q: 'ada' }), textTurn('done')]),
      tools: [annotated('connected')],
    });
    expect((await agent.execute({ input: 'go' })).pendingApprovals[0]!.warnings).toEqual([]);
  });

  it('the read-only preset allows a tool whose definition declares it readOnly, and never one that only hints it', async () => {
    const policy = { rules: presets.readOnlyAutoApprove() };
    const trusted = testAgent({
      model: createScriptedModel([toolCallTurn('lookup', { q: 'ada' }), textTurn('done')]),
      tools: [annotated('connected', true)],
      policy,
    });
    const done = await trusted.execute({ input: 'go' });
    expect(done.status).toBe('completed');
    expect(done.audit[0]).toMatchObject({ source: 'rule', ruleId: 'preset:read-only:declared' });
    const hinted = testAgent({
      model: createScriptedModel([toolCallTurn('lookup', { q: 'ada' }), textTurn('done')]),
      tools: [annotated('connected')],
      policy,
    });
    expect((await hinted.execute({ input: 'go' })).status).toBe('awaitingApproval');
  });

  it('the runtime lists every connector with the worst status its tools report', () => {
    let status: ConnectorStatus = 'connected';
    const crm = echo('crm_read', { connector: 'crm', connectorStatus: () => status });
    const local = echo('local', { connector: 'disk' });
    const agent = testAgent({ model: createScriptedModel([]), tools: [crm, local] });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
    expect(runtime.connectors()).toEqual([{ name: 'crm', status: 'connected', agents: [agent.name] }]);
    status = 'failed';
    expect(runtime.connectors()[0]!.status).toBe('failed');
  });
});
